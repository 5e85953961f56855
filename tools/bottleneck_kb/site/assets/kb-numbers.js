/* Numbers as bottleneck_kb/numbers.py writes them, for the explorer: the same text for the
   same float as the static page (`117 MB`, `267 rows`, `3.6 µs`, `4.19e+06 FLOP/B`). Python's
   formats are mirrored digit for digit: rounding is done on the float's exact value, half to
   even as Python does (0.125 in two decimals is 0.12, where toFixed gives 0.13), and
   exponents have two digits at least (1e-07, not 1e-7). tests/test_numbers_js.py runs both
   on the same inputs. */
(function (global) {
  "use strict";
  var ONE = BigInt(1), TWO = BigInt(2), TEN = BigInt(10);
  var view = new DataView(new ArrayBuffer(8));

  /* |x| (finite) as an exact fraction [numerator, denominator] of BigInts. */
  function exact(x) {
    view.setFloat64(0, Math.abs(x));
    var high = view.getUint32(0), low = view.getUint32(4);
    var biased = (high >>> 20) & 0x7ff;
    var mantissa = BigInt(high & 0xfffff) * BigInt(4294967296) + BigInt(low);
    if (biased === 0) biased = 1; // subnormal
    else mantissa += ONE << BigInt(52);
    var exponent = biased - 1075;
    return exponent >= 0 ? [mantissa << BigInt(exponent), ONE] : [mantissa, ONE << BigInt(-exponent)];
  }

  function power10(k) { return TEN ** BigInt(k); }

  /* |x| * 10 ** k rounded to an integer, half to even. */
  function scaled(x, k) {
    var f = exact(x), n = f[0], d = f[1];
    if (k >= 0) n *= power10(k); else d *= power10(-k);
    var q = n / d, twice = (n % d) * TWO;
    if (twice > d || (twice === d && q % TWO === ONE)) q += ONE;
    return q;
  }

  /* Python's str of an infinity or a NaN. */
  function str(x) { return x !== x ? "nan" : x > 0 ? "inf" : "-inf"; }

  function sign(x) { return x < 0 || (x === 0 && 1 / x < 0) ? "-" : ""; }

  /* Python's format(x, ".{places}f"). */
  function fixed(x, places) {
    if (!isFinite(x)) return str(x);
    var digits = scaled(x, places).toString();
    while (digits.length <= places) digits = "0" + digits;
    var whole = digits.slice(0, digits.length - places);
    return sign(x) + whole + (places > 0 ? "." + digits.slice(digits.length - places) : "");
  }

  /* |x| in `count` significant digits, half to even: [digits, exponent of the first]. */
  function significant(x, count) {
    if (x === 0) return [new Array(count + 1).join("0"), 0];
    var e = Math.floor(Math.log10(Math.abs(x)));
    for (;;) {
      var q = scaled(x, count - 1 - e);
      if (q >= power10(count)) e += 1;
      else if (q < power10(count - 1)) e -= 1;
      else return [q.toString(), e];
    }
  }

  function exponent(e) {
    var size = Math.abs(e);
    return "e" + (e < 0 ? "-" : "+") + (size < 10 ? "0" : "") + size;
  }

  /* Python's format(x, ".{places}e"). */
  function scientific(x, places) {
    if (!isFinite(x)) return str(x);
    var found = significant(x, places + 1), digits = found[0];
    return sign(x) + digits[0] + (places > 0 ? "." + digits.slice(1) : "") + exponent(found[1]);
  }

  function stripZeros(text) {
    return text.indexOf(".") < 0 ? text : text.replace(/0+$/, "").replace(/\.$/, "");
  }

  /* Python's format(x, ".{count}g"): fixed where the exponent is at least -4 and below
     `count`, else scientific; trailing zeros dropped. */
  function general(x, count) {
    count = Math.max(count, 1);
    if (!isFinite(x)) return str(x);
    if (x === 0) return sign(x) + "0";
    var found = significant(x, count), digits = found[0], e = found[1];
    if (e < -4 || e >= count) {
      return sign(x) + stripZeros(digits[0] + "." + digits.slice(1)) + exponent(e);
    }
    var text = e >= 0 ? digits.slice(0, e + 1) + "." + digits.slice(e + 1)
      : "0." + new Array(-e).join("0") + digits;
    return sign(x) + stripZeros(text);
  }

  /* Python's repr(x): the shortest digits that read back as x, fixed where the exponent is
     at least -4 and below 16 (a whole number keeps its `.0`), else scientific. */
  function repr(x) {
    if (!isFinite(x)) return str(x);
    if (x === 0) return sign(x) + "0.0";
    var parts = Math.abs(x).toExponential().split("e");
    var digits = parts[0].replace(".", ""), e = Number(parts[1]);
    if (e < -4 || e >= 16) {
      return sign(x) + digits[0] + (digits.length > 1 ? "." + digits.slice(1) : "") + exponent(e);
    }
    var text;
    if (e < 0) text = "0." + new Array(-e).join("0") + digits;
    else if (digits.length > e + 1) text = digits.slice(0, e + 1) + "." + digits.slice(e + 1);
    else text = digits + new Array(e + 2 - digits.length).join("0") + ".0";
    return sign(x) + text;
  }

  var PREFIXES = [[1e18, "E"], [1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"], [1, ""]];
  var TIME_PREFIXES = [[1, ""], [1e-3, "m"], [1e-6, "\u00b5"], [1e-9, "n"]];
  /* numbers.PREFIXED_UNITS: units that take SI prefixes upwards. */
  var PREFIXED_UNITS = ["FLOP", "B", "B/s", "FLOP/s"];

  /* numbers._significant */
  function sig(value, digits) {
    var text = general(value, digits);
    return text.indexOf("e") >= 0 && Math.abs(value) >= 1 ? fixed(value, 0) : text;
  }

  /* numbers._plain */
  function plain(value, digits) {
    var magnitude = Math.abs(value);
    if (value !== 0 && (magnitude >= 1e6 || magnitude < 1e-3)) return scientific(value, digits - 1);
    if (digits > 3) return sig(value, digits);
    if (magnitude >= 100) return fixed(value, 0);
    // 0.9995 rounds to 1.0, as 1.0 is written.
    if (magnitude >= 1 || Math.abs(Number(general(value, 3))) >= 1) {
      var text = general(value, 3);
      return text.indexOf(".") >= 0 ? text : text + ".0";
    }
    return general(value, 3);
  }

  /* numbers._seconds */
  function seconds(value, digits) {
    if (digits === undefined) digits = 3;
    if (value !== 0 && Math.abs(value) < 1e3) {
      for (var i = 0; i < TIME_PREFIXES.length; i++) {
        if (Math.abs(value) >= TIME_PREFIXES[i][0] * 0.1) {
          return sig(value / TIME_PREFIXES[i][0], digits) + " " + TIME_PREFIXES[i][1] + "s";
        }
      }
    }
    return plain(value, digits) + " s";
  }

  /* numbers.format_quantity: `value` in `unit` (none: "" or null) with an SI prefix where the
     unit takes one, else in `digits` significant digits. */
  function quantity(value, unit, digits) {
    if (digits === undefined) digits = 3;
    unit = unit || "";
    if (!isFinite(value)) return (str(value) + " " + unit).replace(/\s+$/, "");
    value += 0; // -0 is 0 to a reader
    if (unit === "s") return seconds(value, digits);
    if (PREFIXED_UNITS.indexOf(unit) >= 0 && value !== 0) {
      for (var i = 0; i < PREFIXES.length; i++) {
        if (Math.abs(value) >= PREFIXES[i][0] * 0.9995) {
          var shown = value / PREFIXES[i][0];
          if (Math.abs(shown) >= 1000) break; // past the largest prefix
          return sig(shown, digits) + " " + PREFIXES[i][1] + unit;
        }
      }
    }
    return (plain(value, digits) + " " + unit).replace(/\s+$/, "");
  }

  /* numbers.number: a symbol's value as a person writes it (4, 0.25, 128256, 1e+09). */
  function number(value) {
    if (isFinite(value) && Number.isInteger(value) && Math.abs(value) < 1e7) return String(value + 0);
    if (!isFinite(value)) return str(value);
    return general(value, 4);
  }

  /* numbers.exact_number: number(value) where that is the value, else every digit it takes
     (261120.99999999997, not 261121, where a floor would differ). */
  function exactNumber(value) {
    var short = number(value);
    return !isFinite(value) || Number(short) === value ? short : repr(value);
  }

  global.KBNumbers = {
    quantity: quantity,
    seconds: seconds,
    number: number,
    exactNumber: exactNumber,
    fixed: fixed,
    scientific: scientific,
    general: general,
    repr: repr
  };
})(typeof window !== "undefined" ? window : globalThis);
