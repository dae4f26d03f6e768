/**
 * Odoo's search domains (Polish notation: `'|'`, `'&'`, `'!'` before their operands, an implicit
 * `&` between the rest; odoo/osv/expression.py), for the few operators the simulator needs:
 * =, !=, <, <=, >, >=, in, not in. `false` compares with an empty field, as in Odoo.
 */
export type Row = Record<string, unknown>;

export function matches(row: Row, domain: unknown): boolean {
  if (!Array.isArray(domain)) throw new DomainError(`Invalid domain: ${JSON.stringify(domain)}`);
  const items = [...domain];
  const terms: boolean[] = [];
  // Evaluated right to left: each operator takes the values already computed after it.
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it === '|' || it === '&') {
      const a = terms.pop();
      const b = terms.pop();
      if (a === undefined || b === undefined) throw new DomainError(`Invalid domain: ${JSON.stringify(domain)}`);
      terms.push(it === '|' ? a || b : a && b);
    } else if (it === '!') {
      const a = terms.pop();
      if (a === undefined) throw new DomainError(`Invalid domain: ${JSON.stringify(domain)}`);
      terms.push(!a);
    } else terms.push(leaf(row, it));
  }
  return terms.every(Boolean);
}

export class DomainError extends Error {}

function leaf(row: Row, it: unknown): boolean {
  if (!Array.isArray(it) || it.length !== 3 || typeof it[0] !== 'string' || typeof it[1] !== 'string')
    throw new DomainError(`Invalid leaf ${JSON.stringify(it)}`);
  const [field, op, value] = it as [string, string, unknown];
  if (!(field in row)) throw new DomainError(`Invalid field '${field}' in leaf ${JSON.stringify(it)}`);
  let v = row[field];
  if (Array.isArray(v)) v = v[0]; // a many2one read as [id, name]
  const empty = v === false || v === null || v === undefined || v === '';
  switch (op) {
    case '=':
      return value === false ? empty : !empty && String(v) === String(value);
    case '!=':
      return value === false ? !empty : empty || String(v) !== String(value);
    case 'in':
      return Array.isArray(value) && !empty && value.some((x) => String(x) === String(v));
    case 'not in':
      return Array.isArray(value) && (empty || !value.some((x) => String(x) === String(v)));
    case '<':
    case '<=':
    case '>':
    case '>=': {
      if (empty) return false;
      const c = compare(v, value);
      return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
    }
    default:
      throw new DomainError(`Invalid operator '${op}' in leaf ${JSON.stringify(it)}`);
  }
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
