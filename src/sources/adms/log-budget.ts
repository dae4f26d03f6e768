// The bounded log of the push receiver: the helper is shared with other sources (src/util).
export { LogBudget } from '../../util/log-budget.js';
