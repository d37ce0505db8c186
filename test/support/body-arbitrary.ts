import fc from 'fast-check';
import { awkwardText } from './awkward-text.ts';
import { type EncodedForm, encodeForm, type FormEncoding, formSafeName, wellFormed } from './form-encoding.ts';

type Json = Record<string, any>;

const DOMAINS = ['acme.io', 'globex-brands.com', 'mail.initech.co.uk', 'gmail.com', 'mailinator.com', 'yahoo.co.uk'];

/** Addresses inside, outside and at the edges of the document's email pattern, at work and personal domains. */
function emailText(): fc.Arbitrary<string> {
  const local = fc.stringMatching(/^[\w+-]{1,12}(\.[\w+-]{1,8})?$/);
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(local, fc.constantFrom(...DOMAINS)).map(([l, d]) => `${l}@${d}`) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'a@globex-brands.c',
        '78_~?~2@9od.5.iz',
        ' Ada@Acme.IO ',
        '\tada@acme.io\n',
        'ada@acme.io\u0000',
        'ſ@acme.io',
        'K@acme.io',
        'ada@@acme.io',
        'ada@acme..io',
        'ada@-acme.io',
        '"quoted"@acme.io',
        `${'a'.repeat(250)}@acme.io`,
        `${'a'.repeat(243)}@acme.io`,
        '',
        '   ',
      ),
    },
    { weight: 2, arbitrary: fc.emailAddress() },
    { weight: 1, arbitrary: awkwardText({ maxLength: 20 }) },
  );
}

/** Strings around a cap of `max` code points: short awkward ones, and ones a code point under, at and over it. */
function cappedText(max: number, required: boolean): fc.Arbitrary<string> {
  const around = fc
    .tuple(fc.integer({ min: -1, max: 1 }), fc.constantFrom('a', '😀', 'é', ' '))
    .map(([delta, unit]) => unit.repeat(Math.max(0, max + delta)));
  return fc.oneof(
    { weight: 5, arbitrary: awkwardText({ maxLength: Math.min(max + 2, 30) }) },
    { weight: 2, arbitrary: around },
    { weight: required ? 2 : 1, arbitrary: fc.constantFrom('', ' ', '\u0000', ' \t\n', '\u0000 ') },
  );
}

/** Any JSON value, a little nested: the wrong type for any field. */
function junk(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(null, true, false, 0, -1, 2.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, [], {}, '0', 'true'),
    fc.jsonValue({ maxDepth: 3 }),
  );
}

/** A value for one property, drawn from its JSON Schema: mostly what the schema describes, sometimes junk. */
function valueFor(schema: Json, required: boolean): fc.Arbitrary<unknown> {
  const own = (): fc.Arbitrary<unknown> => {
    if (schema.anyOf) return fc.oneof(...(schema.anyOf as Json[]).map((s) => valueFor(s, required)));
    if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
    switch (schema.type) {
      case 'string':
        if (typeof schema.pattern === 'string' && schema.pattern.includes('@')) return emailText();
        return cappedText(schema.maxLength ?? 50, required);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.oneof(fc.integer({ min: -3, max: 1000 }), fc.constantFrom(1e308, 2 ** 53 + 2, -0));
      case 'number':
        return fc.double({ noNaN: true });
      default:
        return junk();
    }
  };
  return fc.oneof({ weight: 5, arbitrary: own() }, { weight: 1, arbitrary: junk() });
}

/**
 * A body drawn from an object schema: each property absent or present (required ones mostly present), with
 * a value from valueFor, plus now and then unknown members. `skip` names properties left out (careers-apply's
 * cvFile, whose base64 and content rules JSON Schema cannot state).
 */
export function bodyFor(schema: Json, { skip = [] as string[] } = {}): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set<string>(schema.required ?? []);
  const entries = Object.entries<Json>(schema.properties ?? {}).filter(([name]) => !skip.includes(name));
  const members = entries.map(([name, property]) =>
    fc
      .option(valueFor(property, required.has(name)), { freq: required.has(name) ? 10 : 3, nil: undefined })
      .map((value) => [name, value] as const),
  );
  const unknown = fc.dictionary(
    fc.string({ minLength: 1, maxLength: 8 }).map((k) => `x-${k}`),
    junk(),
    { maxKeys: 2 },
  );
  return fc.tuple(fc.tuple(...members), fc.option(unknown, { freq: 4, nil: undefined })).map(([pairs, extra]) => {
    const body: Record<string, unknown> = {};
    for (const [name, value] of pairs) if (value !== undefined) body[name] = value;
    return extra ? { ...extra, ...body } : body;
  });
}

/** The raw JSON sent: sometimes with `__proto__` and `constructor` members spliced in, which JSON.stringify cannot write. */
export function rawJson(body: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return fc
    .tuple(
      body,
      fc.constantFrom('', '"__proto__":{"polluted":true},', '"constructor":{"prototype":{"polluted":true}},'),
    )
    .map(([value, splice]) => {
      const text = JSON.stringify(value);
      return splice && text.startsWith('{') && text !== '{}' ? `{${splice}${text.slice(1)}` : text;
    });
}

/**
 * Bodies meant to hurt (issue 10's fuzzing): the schema-shaped ones above with hostile values, and wrong
 * types, 100 KB strings, deep nesting, huge numbers, non-objects and broken JSON.
 */
export function hostileRawJson(schema: Json, { skip = [] as string[] } = {}): fc.Arbitrary<string> {
  const nested = fc
    .tuple(fc.integer({ min: 20, max: 60 }), fc.constantFrom('[', '{"a":'))
    .map(([depth, open]) => `${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`);
  const names = Object.keys(schema.properties ?? {}).filter((n) => !skip.includes(n));
  const hostileValue = fc.oneof(
    junk(),
    fc.constantFrom('x'.repeat(100_000), '😀'.repeat(30_000), '\u0000'.repeat(1_000), '\ud800'.repeat(1_000)),
    fc.constantFrom(1e308, -1e308, 2 ** 64, 1e-308, Number('123456789012345678901234567890')),
    fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 5 }),
  );
  const oneHostileField = fc
    .tuple(bodyFor(schema, { skip }), fc.constantFrom(...names), hostileValue)
    .map(([body, name, value]) => JSON.stringify({ ...body, [name]: value }));
  const nestedField = fc
    .tuple(bodyFor(schema, { skip }), fc.constantFrom(...names, 'x-junk'), nested)
    .map(([body, name, deep]) => {
      const text = JSON.stringify({ ...body, [name]: 0 });
      return text.replace(`"${name}":0`, `"${name}":${deep}`);
    });
  return fc.oneof(
    { weight: 4, arbitrary: rawJson(bodyFor(schema, { skip })) },
    { weight: 3, arbitrary: oneHostileField },
    { weight: 1, arbitrary: nestedField },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(rawJson(bodyFor(schema, { skip })), fc.nat())
        .map(([text, cut]) => text.slice(0, cut % Math.max(1, text.length))),
    },
  );
}

/** A body as a form carries it: the fields a form can send, and the object the gateway reads them into. */
export type FormSample = { encoding: FormEncoding; fields: [string, string][]; read: Record<string, unknown> };

/**
 * A body drawn as bodyFor draws it, posted as a form in either encoding, with the object the documented
 * convention reads it into (docs/site-forms.md#plain-html-forms): every value a string (a boolean as
 * "true"/"false", a number as its digits; null, arrays and objects are left out, a form cannot send them),
 * lone surrogates as U+FFFD (UTF-8), and on a plain-boolean field "true"/"on" and "false"/"off" read as
 * booleans, an empty value as absent. The contract check judges `read` by the document.
 */
export function formBodyFor(schema: Json, { skip = [] as string[] } = {}): fc.Arbitrary<FormSample> {
  const booleans = new Set(
    Object.entries<Json>(schema.properties ?? {})
      .filter(([, property]) => property.type === 'boolean')
      .map(([name]) => name),
  );
  return fc
    .tuple(bodyFor(schema, { skip }), fc.constantFrom<FormEncoding>('urlencoded', 'multipart'))
    .map(([body, encoding]) => {
      const fields: [string, string][] = [];
      const read: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(body)) {
        if (!formSafeName(name) || name.includes('.')) continue;
        if (typeof value !== 'string' && typeof value !== 'boolean' && typeof value !== 'number') continue;
        const text = String(value);
        fields.push([name, text]);
        const word = text.trim().toLowerCase();
        if (!booleans.has(name)) read[name] = wellFormed(text);
        else if (word === 'true' || word === 'on') read[name] = true;
        else if (word === 'false' || word === 'off') read[name] = false;
        else if (word !== '') read[name] = wellFormed(text);
      }
      return { encoding, fields, read };
    });
}

/**
 * Form bodies meant to hurt: schema-shaped ones with a hostile value, more fields than a body may hold,
 * names nested past the depth limit, `__proto__` and `constructor` paths, multipart cut short, with a
 * boundary that is not the one declared or none at all, and bytes that are no form.
 */
export function hostileForm(schema: Json, { skip = [] as string[] } = {}): fc.Arbitrary<EncodedForm> {
  const names = Object.keys(schema.properties ?? {}).filter((n) => !skip.includes(n));
  const encoding = fc.constantFrom<FormEncoding>('urlencoded', 'multipart');
  const hostileValue = fc.constantFrom(
    'x'.repeat(100_000),
    '😀'.repeat(30_000),
    '\u0000'.repeat(1_000),
    '\ud800'.repeat(1_000),
    '%00%ZZ%',
    '\r\n--',
  );
  const oneHostileField = fc
    .tuple(formBodyFor(schema, { skip }), fc.constantFrom(...names), hostileValue)
    .map(([sample, name, value]) => encodeForm([...sample.fields, [name, value]], sample.encoding));
  const tooMany = fc
    .tuple(fc.integer({ min: 990, max: 1_200 }), encoding)
    .map(([count, enc]) =>
      encodeForm([['email', 'a@acme.io'], ...Array.from({ length: count }, (_, i) => [`x${i}`, ''] as const)], enc),
    );
  const deep = fc
    .tuple(fc.integer({ min: 20, max: 60 }), fc.constantFrom(...names), encoding)
    .map(([depth, name, enc]) =>
      encodeForm(
        [
          [`${name}${'.a'.repeat(depth)}`, 'x'],
          ['email', 'a@acme.io'],
        ],
        enc,
      ),
    );
  const pollution = fc
    .tuple(
      fc.constantFrom('__proto__.polluted', 'constructor.prototype.polluted', '__proto__', 'email.__proto__'),
      encoding,
    )
    .map(([name, enc]) =>
      encodeForm(
        [
          ['email', 'a@acme.io'],
          [name, 'yes'],
        ],
        enc,
      ),
    );
  const broken = fc
    .tuple(formBodyFor(schema, { skip }), fc.nat(), fc.constantFrom('cut', 'no-boundary', 'other-boundary', 'junk'))
    .map(([sample, cut, how]) => {
      const form = encodeForm(sample.fields, 'multipart');
      if (how === 'cut') return { ...form, body: form.body.subarray(0, cut % Math.max(1, form.body.length)) };
      if (how === 'no-boundary') return { ...form, contentType: 'multipart/form-data' };
      if (how === 'other-boundary') return { ...form, contentType: 'multipart/form-data; boundary=nope' };
      return { contentType: 'application/x-www-form-urlencoded', body: Buffer.from([0xff, 0xfe, 0x26, 0x3d, 0x25]) };
    });
  return fc.oneof(
    { weight: 3, arbitrary: formBodyFor(schema, { skip }).map((s) => encodeForm(s.fields, s.encoding)) },
    { weight: 3, arbitrary: oneHostileField },
    { weight: 1, arbitrary: tooMany },
    { weight: 1, arbitrary: deep },
    { weight: 1, arbitrary: pollution },
    { weight: 2, arbitrary: broken },
  );
}
