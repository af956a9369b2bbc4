// fixture: a function declared and never used
function forgotten() {
  return 1;
}
export const x = 2;
