// fixture: loose equality (== against a string), and == null, which is allowed
export function same(a) {
  if (a == null) return false;
  return a == '1';
}
