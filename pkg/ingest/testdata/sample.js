'use strict';
const fs = require('fs');

/* comment with ` backtick and { brace */
function a(x) {
  const re = /\/\*[}`'"]*\*\//;
  return x.replace(re, `${x} }`);
}

const b = (y) => {
  return y / 2 / 3;
};

class K {
  static #count = 0;
  get n() { return K.#count; }
}

module.exports = { a, b, K };
