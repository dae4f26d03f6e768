/**
 * One line of a push upload as every reader of one sees it: without its line end's CR (CRLF
 * firmware) and without the NUL bytes some eSSL and clone firmware pads its lines, or the body's
 * end, with, as a C buffer would be: padding, not data. Read alike by every table, so that a padded
 * rtlog row is the access event it carries (it was kept raw as "no event= code", its punch never
 * sent) and a body padded after its last line has no unreadable line of NULs. A NUL or a CR
 * anywhere else stays, for the reader to refuse.
 */
// eslint-disable-next-line no-control-regex -- NUL padding is what is matched
const LINE_END_PADDING = /[\r\u0000]+$/;

export const uploadLine = (raw: string): string => raw.replace(LINE_END_PADDING, '');
