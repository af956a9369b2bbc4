// fixture: an implicit global (a typo for count)
let count = 0;
export function bump() {
  coutn = count + 1;
  return count;
}
