/**
 * The list of employees in a Fetch Employee Master Data answer, and whether the answer itself says
 * it is only part of the list. The contract leaves the answer's shape open; instances that page
 * their lists say so with a total, a next link or a page count. punchgate reads one answer, so a
 * page taken for the whole list would make every employee on later pages look gone: the roster
 * would then remove them from the terminals. Such an answer is named, never used.
 */
import { firstFew } from '../util/first-few.js';

/** Where the list may be: the data itself, or an array under one of these keys of it. */
const LIST_KEYS = ['employees', 'records', 'rows', 'items', 'data'] as const;
const TOTAL_KEYS = [
  'total',
  'totalCount',
  'total_count',
  'totalRecords',
  'total_records',
  'recordsTotal',
  'totalItems',
  'total_items',
  'count',
];
const NEXT_KEYS = [
  'next',
  'nextPage',
  'next_page',
  'next_page_url',
  'nextPageUrl',
  'nextPageToken',
  'next_page_token',
  'nextCursor',
  'next_cursor',
];
const MORE_KEYS = ['hasMore', 'has_more', 'more', 'hasNextPage', 'has_next_page'];
const PAGES_KEYS = ['totalPages', 'total_pages', 'last_page', 'lastPage', 'pages', 'pageCount', 'page_count'];
/**
 * Paging that names no total (found by a trial): the page answered and its size. A page after the
 * first, or a start past 0, is not the beginning of the list; a list exactly as long as the page
 * size may have more after it. (`size` alone is left out: some answers use it for the list's own length.)
 */
const PAGE_KEYS = ['page', 'currentPage', 'current_page', 'pageNumber', 'page_number', 'pageNo', 'page_no'];
const OFFSET_KEYS = ['offset', 'skip', 'start', 'from_index'];
const PAGE_SIZE_KEYS = ['per_page', 'perPage', 'page_size', 'pageSize', 'limit', 'rows_per_page', 'rowsPerPage'];

export interface EmployeeList {
  list: unknown[];
  /** Why the answer is only part of the list, in plain words; undefined when nothing says so. */
  partial?: string;
}

/**
 * The list in `data`; `envelope` is the answer's other top-level fields (where some instances put
 * their paging). Undefined when there is no list.
 */
export function employeeListOf(data: unknown, envelope: Record<string, unknown> = {}): EmployeeList | undefined {
  let list: unknown[] | undefined;
  const holders: Record<string, unknown>[] = [envelope];
  if (Array.isArray(data)) list = data;
  else if (isObject(data)) {
    holders.push(data);
    for (const k of LIST_KEYS) {
      const v = data[k];
      if (Array.isArray(v)) {
        list = v;
        break;
      }
    }
  }
  if (!list) return undefined;
  const partial = holders.map((h) => partialOf(h, list.length)).find((p) => p !== undefined);
  return partial === undefined ? { list } : { list, partial };
}

/**
 * Where an answer with no list where punchgate reads it keeps one, if anywhere, in plain words: a
 * list under another key is the contract's shape or the setting's path being wrong, not a
 * passing failure (found by a trial: it was reported as temporary, exit 75, and retried for ever).
 */
export function listNotFound(
  data: unknown,
  envelope: Record<string, unknown> = {},
): { expected: string; found: string } {
  const lists: string[] = [];
  for (const [k, v] of Object.entries(envelope))
    if (k !== 'data' && Array.isArray(v)) lists.push(`a list of ${v.length} under the top-level key "${k}"`);
  if (isObject(data))
    for (const [k, v] of Object.entries(data))
      if (Array.isArray(v)) lists.push(`a list of ${v.length} under data.${k}`);
  const where = `data itself, or ${LIST_KEYS.map((k) => `data.${k}`).join(', ')}`;
  const found =
    lists.length > 0
      ? firstFew(lists, 3)
      : data === undefined || data === null
        ? `no data and no list (top-level keys: ${firstFew(Object.keys(envelope), 8) || 'none'})`
        : `data is ${Array.isArray(data) ? 'a list' : typeof data === 'object' ? 'an object with no list in it' : `a ${typeof data}`}`;
  return { expected: where, found };
}

function partialOf(o: Record<string, unknown>, got: number): string | undefined {
  const links = isObject(o.links) ? o.links : isObject(o.pagination) ? o.pagination : isObject(o.meta) ? o.meta : {};
  const all = { ...links, ...o };
  for (const k of TOTAL_KEYS) {
    const n = count(all[k]);
    if (n !== undefined && n > got) return `it holds ${got} and says ${k} ${n}`;
  }
  for (const k of NEXT_KEYS) {
    const v = all[k];
    if ((typeof v === 'string' && v.trim() !== '') || v === true || (typeof v === 'number' && v > 0))
      return `it holds ${got} and names a next page (${k})`;
  }
  for (const k of MORE_KEYS) if (all[k] === true) return `it holds ${got} and says ${k}`;
  for (const k of PAGES_KEYS) {
    const n = count(all[k]);
    if (n !== undefined && n > 1) return `it holds ${got} and says ${k} ${n}`;
  }
  for (const k of PAGE_KEYS) {
    const n = count(all[k]);
    if (n !== undefined && n > 1) return `it holds ${got} and is page ${n} (${k})`;
  }
  for (const k of OFFSET_KEYS) {
    const n = count(all[k]);
    if (n !== undefined && n > 0) return `it holds ${got} and starts at ${k} ${n}`;
  }
  // A total that says this is everyone ends the list, however full the page (found by a trial:
  // 100 employees at per_page 100 with total 100 were refused as "more may follow").
  // `count` is left out: some answers use it for the page's own length, which says nothing of the rest.
  const whole = TOTAL_KEYS.some((k) => k !== 'count' && count(all[k]) === got);
  for (const k of PAGE_SIZE_KEYS) {
    const n = count(all[k]);
    if (!whole && n !== undefined && n > 0 && n === got)
      return `it holds ${got} and fills a page of ${k} ${n}: more may follow`;
  }
  return undefined;
}

function count(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v.trim())) return Number(v.trim());
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
