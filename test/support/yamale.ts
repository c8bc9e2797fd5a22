/**
 * The part of yamale (the Python validator chart-testing runs on Chart.yaml) that ct's chart_schema.yaml
 * uses: str(), num(), bool(), any(...), list(...), map(key, value), include('name') and required=False,
 * in yamale's strict mode (a key the schema does not name is an error). Returns the errors as
 * `path: message` lines, none when the document fits.
 */
import { parseAllDocuments } from 'yaml';

interface Validator {
  name: string;
  args: Validator[];
  include?: string;
  required: boolean;
}

/** Parses one validator expression, e.g. `list(include('maintainer'), required=False)`. */
function parseExpression(text: string): Validator {
  let i = 0;
  const skip = () => {
    while (text[i] === ' ') i++;
  };
  const parse = (): Validator => {
    skip();
    const name = /^[a-z_]+/.exec(text.slice(i))![0];
    i += name.length;
    const v: Validator = { name, args: [], required: true };
    if (text[i] !== '(') throw new Error(`yamale subset: '(' expected after ${name} in ${text}`);
    i++;
    for (skip(); text[i] !== ')'; skip()) {
      const quoted = /^'([^']*)'/.exec(text.slice(i));
      const keyword = /^(\w+)=(\w+)/.exec(text.slice(i));
      if (quoted) {
        v.include = quoted[1];
        i += quoted[0].length;
      } else if (keyword) {
        if (keyword[1] !== 'required') throw new Error(`yamale subset: keyword ${keyword[1]} not supported`);
        v.required = keyword[2] !== 'False';
        i += keyword[0].length;
      } else {
        v.args.push(parse());
      }
      skip();
      if (text[i] === ',') i++;
    }
    i++;
    return v;
  };
  return parse();
}

type Schema = Record<string, Validator>;

/** Loads a yamale schema: the first document, and the includes named by the later ones. */
export function loadSchema(text: string): { main: Schema; includes: Record<string, Schema> } {
  const docs = parseAllDocuments(text).map((d) => d.toJSON() as Record<string, unknown>);
  const compile = (doc: Record<string, unknown>): Schema => Object.fromEntries(Object.entries(doc).map(([k, e]) => [k, parseExpression(String(e))]));
  const includes: Record<string, Schema> = {};
  for (const doc of docs.slice(1)) for (const [name, body] of Object.entries(doc)) includes[name] = compile(body as Record<string, unknown>);
  return { main: compile(docs[0]!), includes };
}

export function validate(schema: ReturnType<typeof loadSchema>, value: unknown): string[] {
  const errors: string[] = [];
  const check = (v: Validator, x: unknown, at: string): boolean => {
    const fail = (message: string) => {
      errors.push(`${at}: ${message}`);
      return false;
    };
    switch (v.name) {
      case 'str':
        return typeof x === 'string' || fail(`'${String(x)}' is not a str`);
      case 'num':
        return typeof x === 'number' || fail(`'${String(x)}' is not a num`);
      case 'bool':
        return typeof x === 'boolean' || fail(`'${String(x)}' is not a bool`);
      case 'any': {
        const before = errors.length;
        if (v.args.some((a) => check(a, x, at))) {
          errors.length = before;
          return true;
        }
        errors.length = before;
        return fail(`'${String(x)}' is none of ${v.args.map((a) => a.name).join(', ')}`);
      }
      case 'list':
        if (!Array.isArray(x)) return fail('is not a list');
        return x.map((item, n) => v.args.length === 0 || check(v.args[0]!, item, `${at}.${n}`)).every(Boolean);
      case 'map':
        if (x === null || typeof x !== 'object' || Array.isArray(x)) return fail('is not a map');
        return Object.entries(x)
          .map(([k, item]) => (v.args[0] ? check(v.args[0], k, `${at} key ${k}`) : true) && (v.args[1] ? check(v.args[1], item, `${at}.${k}`) : true))
          .every(Boolean);
      case 'include':
        return object(schema.includes[v.include!]!, x, at);
      default:
        throw new Error(`yamale subset: validator ${v.name} not supported`);
    }
  };
  const object = (s: Schema, x: unknown, at: string): boolean => {
    if (x === null || typeof x !== 'object' || Array.isArray(x)) {
      errors.push(`${at}: is not a map`);
      return false;
    }
    const o = x as Record<string, unknown>;
    let ok = true;
    for (const [key, v] of Object.entries(s)) {
      const path = at ? `${at}.${key}` : key;
      if (!(key in o)) {
        if (v.required) errors.push(`${path}: Required field missing`);
        ok &&= !v.required;
      } else ok = check(v, o[key], path) && ok;
    }
    for (const key of Object.keys(o)) {
      if (!(key in s)) {
        errors.push(`${at ? `${at}.` : ''}${key}: Unexpected element`);
        ok = false;
      }
    }
    return ok;
  };
  object(schema.main, value, '');
  return errors;
}
