// The cold-start benchmark's tool module (bench/cold.html, system AT): the page's own function, so
// that the page marks the moment the result exists, as it does for A and B.
export function ping(args) {
  return window.coldPing(args);
}
