import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstFew, firstFewPorts } from '../src/render/lists.ts';
import { quotePortName } from '../src/syntax/field-value.ts';

test('firstFew: up to three items in full, more cut after the third with an ellipsis, each as asked', () => {
  assert.equal(firstFew([]), '');
  assert.equal(firstFew(['a']), 'a');
  assert.equal(firstFew(['a', 'b', 'c']), 'a, b, c');
  assert.equal(firstFew(['a', 'b', 'c', 'd']), 'a, b, c, …');
  assert.equal(firstFew(['gw0', 'antrea-tun0', 'p1', 'p2', 'p3'], quotePortName), 'gw0, "antrea-tun0", p1, …');
  assert.equal(firstFew([1, 2, 3, 4, 5]), '1, 2, 3, …');
  assert.equal(firstFewPorts(['gw0', 'antrea-tun0', 'p1', 'p2']), 'gw0, "antrea-tun0", p1, …');
});
