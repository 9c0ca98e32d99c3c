/**
 * Character codes the scanners compare against: they run over every character of a dump, so they
 * compare codes rather than allocate one-character strings.
 */
export const TAB = 0x09;
export const LINE_FEED = 0x0a;
export const CARRIAGE_RETURN = 0x0d;
export const SPACE = 0x20;
export const QUOTE = 0x22;
export const OPEN_PAREN = 0x28;
export const CLOSE_PAREN = 0x29;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const EQUALS = 0x3d;
export const OPEN_BRACKET = 0x5b;
export const BACKSLASH = 0x5c;
export const CLOSE_BRACKET = 0x5d;
