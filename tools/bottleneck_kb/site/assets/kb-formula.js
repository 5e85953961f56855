/* Runtime of the formulas compiled by bottleneck_kb/site/formula_js.py: the float semantics of
   the Python evaluator (formula.py), so a point where a model is undefined is refused with the
   same message, never shown as NaN. */
(function (global) {
  "use strict";

  function FormulaError(message, offset) {
    this.name = "FormulaError";
    this.message = message;
    this.offset = offset;
  }
  FormulaError.prototype = Object.create(Error.prototype);
  FormulaError.prototype.constructor = FormulaError;

  function fail(message, offset) {
    throw new FormulaError(message, offset);
  }

  function finite(x, offset) {
    if (!isFinite(x)) fail("result is not a finite number", offset);
    return x;
  }

  /* Python's format(x, "g"), six significant digits, as kb-numbers.js writes it (loaded
     first): rounded on the float's exact value, half to even, as Python rounds. */
  function g(x) {
    return global.KBNumbers.general(x, 6);
  }

  /* formula._integer_power, step for step: binary powering, the same correctly rounded
     multiplications in the same order, so the bits equal Python's. `left` is a float (an
     exponent may be past 2 ** 53), so it is halved by arithmetic, not by 32-bit shifts. A
     reciprocal of 0 or a square past the largest float gives an infinity, refused by pow. */
  /* formula.BINARY_POWERING_LIMIT: larger integer exponents go to Math.pow, as to pow. */
  var BINARY_POWERING_LIMIT = 64;

  function integerPower(base, exponent) {
    var left = Math.abs(exponent), result = 1, square = base;
    while (left > 0) {
      if (left % 2 === 1) result *= square;
      left = Math.floor(left / 2);
      square *= square;
    }
    return exponent < 0 ? 1 / result : result;
  }

  var R = {
    FormulaError: FormulaError,
    g: g,
    sym: function (v, name, offset) {
      var x = Object.prototype.hasOwnProperty.call(v, name) ? v[name] : undefined;
      if (typeof x !== "number") fail("no value for symbol `" + name + "`", offset);
      if (!isFinite(x)) fail("value of `" + name + "` is not a finite number", offset);
      return x;
    },
    add: function (a, b, offset) { return finite(a + b, offset); },
    sub: function (a, b, offset) { return finite(a - b, offset); },
    mul: function (a, b, offset) { return finite(a * b, offset); },
    div: function (a, b, offset) {
      if (b === 0) fail("division by zero", offset);
      return finite(a / b, offset);
    },
    pow: function (a, b, offset) {
      // formula.power: the same refusals, and the same bits except for an exponent neither
      // integral nor 0.5, where Math.pow and libm's pow may differ in the last one.
      if (a === 0 && b < 0) fail("division by zero (zero to a negative power)", offset);
      if (a < 0 && !Number.isInteger(b)) {
        fail("negative number to a fractional power is not a real number", offset);
      }
      // Math.abs: Math.pow(-0, 0.5) is +0, Math.sqrt(-0) is -0.
      var multiplied = Number.isInteger(b) && Math.abs(b) <= BINARY_POWERING_LIMIT;
      var result = multiplied ? integerPower(a, b) : b === 0.5 ? Math.sqrt(Math.abs(a)) : Math.pow(a, b);
      if (!isFinite(result)) fail("result is too large", offset);
      return result;
    },
    /* Python's min and max: the first argument no later one is strictly below (above). Not
       Math.min, which takes -0 over 0 where Python keeps the first (log2 of the result is
       then -inf for one and refused at 0 for the other, with another message). */
    min: function () {
      var best = arguments[0];
      for (var i = 1; i < arguments.length; i++) if (arguments[i] < best) best = arguments[i];
      return best;
    },
    max: function () {
      var best = arguments[0];
      for (var i = 1; i < arguments.length; i++) if (arguments[i] > best) best = arguments[i];
      return best;
    },
    call: function (name, impl, args, offset) {
      var result = impl.apply(null, args);
      // The language's functions are finite on finite arguments inside their domain.
      if (!isFinite(result)) fail("`" + name + "(" + args.map(g).join(", ") + ")` is undefined", offset);
      return result;
    }
  };

  global.KBFormula = R;
})(typeof window !== "undefined" ? window : globalThis);
