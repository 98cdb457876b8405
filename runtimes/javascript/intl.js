// Intl for the sandbox's JavaScript. QuickJS has none: FormatJS's polyfills
// (built-in npm packages, English data only) give Intl.getCanonicalLocales,
// Locale, PluralRules, NumberFormat, DateTimeFormat (with IANA time zones),
// RelativeTimeFormat and ListFormat, and the toLocaleString family of
// Number, BigInt and Date. Intl.Collator, which FormatJS does not have, is
// ours: the ordering of ICU's root collation for the Latin script, which
// en-US uses - punctuation and spaces, then digits, then letters; letters
// compared without accents or case first, then accents, then case (lower
// first) - with the options numeric, sensitivity, caseFirst and
// ignorePunctuation. String.prototype.localeCompare uses it, as in node.
// Required once by the runtime's preload, when the snapshot is made.
'use strict';
const formatjs = '/usr/lib/node_modules/@formatjs/';

// FormatJS's English date data made to format as node 20 does: V8 prints a
// plain space where CLDR puts a narrow no-break one (before AM/PM), and
// CLDR 43 joins a long or full date and its time with " at "
// ("Monday, January 15, 2024 at 1:05 PM") where FormatJS's data has a comma
function plainSpaces(v) {
  if (typeof v === 'string') return v.replace(/\u202f/g, ' ');
  if (Array.isArray(v)) return v.map(plainSpaces);
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v)) o[k] = plainSpaces(v[k]);
    return o;
  }
  return v;
}

function likeNode(data) {
  const o = plainSpaces(data);
  if (o.dateTimeFormat) o.dateTimeFormat = { ...o.dateTimeFormat, full: "{1} 'at' {0}", long: "{1} 'at' {0}" };
  return o;
}

// what each constructor was given for "en", to give it again as "en-US"
const english = new Map();
const POLYFILLS = {
  'intl-pluralrules/polyfill.iife.js': 'PluralRules',
  'intl-numberformat/polyfill.iife.js': 'NumberFormat',
  'intl-datetimeformat/polyfill.iife.js': 'DateTimeFormat',
  'intl-relativetimeformat/polyfill.iife.js': 'RelativeTimeFormat',
  'intl-listformat/polyfill.iife.js': 'ListFormat',
};

function load(file) {
  require(formatjs + file);
  const C = Intl[POLYFILLS[file]];
  if (!C) return;
  const add = C.__addLocaleData;
  C.__addLocaleData = function (...data) {
    if (C === Intl.DateTimeFormat) data = data.map((d) => ({ ...d, data: likeNode(d.data) }));
    for (const d of data) if (d.locale === 'en') english.set(C, d.data);
    return add.apply(this, data);
  };
}

for (const file of [
  'intl-getcanonicallocales/polyfill.iife.js',
  'intl-locale/polyfill.iife.js',
  'intl-pluralrules/polyfill.iife.js',
  'intl-pluralrules/locale-data/en.js',
  'intl-numberformat/polyfill.iife.js',
  'intl-numberformat/locale-data/en.js',
  'intl-datetimeformat/polyfill.iife.js',
  'intl-datetimeformat/locale-data/en.js',
  'intl-relativetimeformat/polyfill.iife.js',
  'intl-relativetimeformat/locale-data/en.js',
  'intl-listformat/polyfill.iife.js',
  'intl-listformat/locale-data/en.js',
])
  load(file);

// node's default locale is en-US, resolved as itself; FormatJS knows only
// "en": the same data under both names
for (const [C, data] of english) {
  C.__addLocaleData({ data, locale: 'en-US' });
  C.__defaultLocale = 'en-US';
}

// IANA time zones: 9 MB of heap, so not in the snapshot; loaded (about
// 0.2 s) by the first DateTimeFormat of a call that names a zone other than
// UTC, the zone every call runs in. An unknown zone is refused as node does.
const Polyfilled = Intl.DateTimeFormat;
let zones = false;
function DateTimeFormat(locales, options) {
  const tz = options === undefined || options === null ? undefined : Object(options).timeZone;
  if (tz !== undefined && !zones && String(tz).toUpperCase() !== 'UTC') {
    require(formatjs + 'intl-datetimeformat/add-all-tz.js');
    zones = true;
  }
  try {
    return Reflect.construct(Polyfilled, [locales, options], new.target || DateTimeFormat);
  } catch (e) {
    if (e instanceof RangeError && tz !== undefined && /time ?zone/i.test(e.message))
      throw new RangeError(`Invalid time zone specified: ${tz}`);
    throw e;
  }
}
for (const k of Reflect.ownKeys(Polyfilled))
  if (!['length', 'name', 'prototype'].includes(k))
    Object.defineProperty(DateTimeFormat, k, Object.getOwnPropertyDescriptor(Polyfilled, k));
DateTimeFormat.prototype = Polyfilled.prototype;
Object.defineProperty(Polyfilled.prototype, 'constructor', { value: DateTimeFormat, writable: true, configurable: true });
Object.defineProperty(Intl, 'DateTimeFormat', { value: DateTimeFormat, writable: true, configurable: true });

// ICU joins a date and its time by the date's width, where FormatJS's
// combined patterns all have a comma: " at " after a long month (CLDR's long
// and full dateTimeFormat: "January 15 at 1:05 PM"), a plain space after a
// weekday alone when the time has no zone (CLDR's "Ehm": "Monday 1:05 PM")
const DATE_PARTS = new Set(['weekday', 'era', 'year', 'relatedYear', 'month', 'day']);
const TIME_PARTS = new Set(['hour', 'minute', 'second', 'fractionalSecond', 'dayPeriod']);
const rawResolved = Polyfilled.prototype.resolvedOptions;
const rawFormatToParts = Polyfilled.prototype.formatToParts;
const glues = new WeakMap();
function glueOf(dtf) {
  let glue = glues.get(dtf);
  if (glue === undefined) {
    const o = rawResolved.call(dtf);
    const weekdayAlone = o.weekday !== undefined && o.timeZoneName === undefined &&
      [o.era, o.year, o.month, o.day].every((v) => v === undefined);
    glue = o.dateStyle !== undefined || o.timeStyle !== undefined ? null
      : o.month === 'long' ? ' at ' : weekdayAlone ? ' ' : null;
    glues.set(dtf, glue);
  }
  return glue;
}
function mended(dtf, date) {
  const parts = rawFormatToParts.call(dtf, date);
  const glue = glueOf(dtf);
  if (glue === null) return parts;
  return parts.map((p, i) => p.type === 'literal' && p.value === ', ' && i > 0 && DATE_PARTS.has(parts[i - 1].type) &&
    i + 1 < parts.length && TIME_PARTS.has(parts[i + 1].type) ? { type: 'literal', value: glue } : p);
}
const rawFormat = Object.getOwnPropertyDescriptor(Polyfilled.prototype, 'format').get;
const formats = new WeakMap();
Object.defineProperty(Polyfilled.prototype, 'formatToParts', {
  value: function formatToParts(date) { return mended(this, date); },
  writable: true,
  configurable: true,
});
Object.defineProperty(Polyfilled.prototype, 'format', {
  get() {
    const plain = rawFormat.call(this); // a TypeError for what is not a DateTimeFormat
    if (glueOf(this) === null) return plain;
    let f = formats.get(this);
    if (!f) {
      f = (date) => mended(this, date).map((p) => p.value).join('');
      formats.set(this, f);
    }
    return f;
  },
  configurable: true,
});

// the toLocale*String of Date, with the defaults the standard gives them
// (ToDateTimeOptions), which FormatJS's toLocaleDateString misses; and of BigInt
const DATE = ['weekday', 'year', 'month', 'day'];
const TIME = ['dayPeriod', 'hour', 'minute', 'second', 'fractionalSecondDigits'];
function dateTimeOptions(options, required, defaults) {
  const o = options === undefined ? {} : { ...Object(options) };
  let needed = true;
  if (required !== 'time') for (const k of DATE) if (o[k] !== undefined) needed = false;
  if (required !== 'date') for (const k of TIME) if (o[k] !== undefined) needed = false;
  if (o.dateStyle !== undefined || o.timeStyle !== undefined) needed = false;
  if (required === 'date' && o.timeStyle !== undefined) throw new TypeError('Invalid option : timeStyle');
  if (required === 'time' && o.dateStyle !== undefined) throw new TypeError('Invalid option : dateStyle');
  if (needed && defaults !== 'time') for (const k of ['year', 'month', 'day']) o[k] = 'numeric';
  if (needed && defaults !== 'date') for (const k of ['hour', 'minute', 'second']) o[k] = 'numeric';
  return o;
}
for (const [name, required, defaults] of [
  ['toLocaleString', 'any', 'all'],
  ['toLocaleDateString', 'date', 'date'],
  ['toLocaleTimeString', 'time', 'time'],
]) {
  const method = {
    [name](locales, options) {
      const t = Date.prototype.getTime.call(this); // a TypeError for what is not a Date
      if (Number.isNaN(t)) return 'Invalid Date';
      return new Intl.DateTimeFormat(locales, dateTimeOptions(options, required, defaults)).format(t);
    },
  }[name];
  Object.defineProperty(Date.prototype, name, { value: method, writable: true, configurable: true });
}
Object.defineProperty(BigInt.prototype, 'toLocaleString', {
  value: function toLocaleString(locales, options) {
    return new Intl.NumberFormat(locales, options).format(BigInt.prototype.valueOf.call(this));
  },
  writable: true,
  configurable: true,
});

const DIGITS = /^\p{Nd}+/u;

// One collation element per character (a run of digits with `numeric`):
// [group, primary, accents, isUpper]
function elements(s, o) {
  const out = [];
  const text = String(s).normalize('NFD');
  let i = 0;
  while (i < text.length) {
    if (o.numeric) {
      const m = DIGITS.exec(text.slice(i));
      if (m) {
        const n = m[0].replace(/^0+(?=\d)/, '');
        out.push([2, n.length, n, '', false]);
        i += m[0].length;
        continue;
      }
    }
    const cp = text.codePointAt(i);
    const ch = String.fromCodePoint(cp);
    i += ch.length;
    let accents = '';
    while (i < text.length && /\p{M}/u.test(text[i])) accents += text[i++];
    if (/\p{M}/u.test(ch)) continue;
    const letter = /\p{L}/u.test(ch);
    const group = letter ? 3 : /\p{N}/u.test(ch) ? 2 : 1;
    if (group === 1 && o.ignorePunctuation) continue;
    const lower = ch.toLowerCase();
    out.push([group, 0, lower, accents, letter && lower !== ch]);
  }
  return out;
}

function cmp(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareWith(o) {
  return (x, y) => {
    const a = elements(x, o), b = elements(y, o);
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) { // primary: group, then the base character (or the number)
      const c = cmp(a[i][0], b[i][0]) || cmp(a[i][1], b[i][1]) || cmp(a[i][2], b[i][2]);
      if (c) return c;
    }
    if (a.length !== b.length) return a.length < b.length ? -1 : 1;
    if (o.sensitivity === 'accent' || o.sensitivity === 'variant')
      for (let i = 0; i < n; i++) {
        const c = cmp(a[i][3], b[i][3]);
        if (c) return c;
      }
    if (o.sensitivity === 'case' || o.sensitivity === 'variant')
      for (let i = 0; i < n; i++)
        if (a[i][4] !== b[i][4]) return (a[i][4] ? 1 : -1) * (o.caseFirst === 'upper' ? -1 : 1);
    return 0;
  };
}

const SENSITIVITY = ['base', 'accent', 'case', 'variant'];
const compares = new WeakMap();

class Collator {
  constructor(locales, options) {
    const o = options === undefined ? {} : Object(options);
    const pick = (name, allowed, fallback) => {
      const v = o[name];
      if (v === undefined) return fallback;
      const s = String(v);
      if (!allowed.includes(s)) throw new RangeError(`Value ${s} out of range for Intl.Collator options property ${name}`);
      return s;
    };
    const usage = pick('usage', ['sort', 'search'], 'sort');
    const sensitivity = pick('sensitivity', SENSITIVITY, 'variant');
    const caseFirst = pick('caseFirst', ['upper', 'lower', 'false'], 'false');
    const resolved = {
      locale: Intl.getCanonicalLocales(locales === undefined ? [] : locales).length
        ? (Intl.NumberFormat.supportedLocalesOf(locales)[0] || 'en-US')
        : 'en-US',
      usage,
      sensitivity,
      ignorePunctuation: o.ignorePunctuation === undefined ? false : Boolean(o.ignorePunctuation),
      collation: 'default',
      numeric: o.numeric === undefined ? false : Boolean(o.numeric),
      caseFirst,
    };
    const compare = compareWith(resolved);
    compares.set(this, { resolved, compare: (x, y) => compare(x, y) });
  }
  get compare() {
    const own = compares.get(this);
    if (!own) throw new TypeError('Method Intl.Collator.prototype.compare called on incompatible receiver');
    return own.compare;
  }
  resolvedOptions() {
    const own = compares.get(this);
    if (!own) throw new TypeError('Method Intl.Collator.prototype.resolvedOptions called on incompatible receiver');
    return { ...own.resolved };
  }
  static supportedLocalesOf(locales) {
    return Intl.NumberFormat.supportedLocalesOf(locales);
  }
}
Object.defineProperty(Collator.prototype, Symbol.toStringTag, { value: 'Intl.Collator', configurable: true });
Object.defineProperty(Intl, 'Collator', { value: Collator, writable: true, configurable: true });
Object.defineProperty(String.prototype, 'localeCompare', {
  value: function localeCompare(that, locales, options) {
    if (this == null) throw new TypeError('String.prototype.localeCompare called on null or undefined');
    return new Collator(locales, options).compare(String(this), String(that));
  },
  writable: true,
  configurable: true,
});
