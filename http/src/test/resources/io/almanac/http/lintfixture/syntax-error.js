// fixture: a syntax error (an unclosed parameter list)
export function f(a, {
  return a;
}
