/** The Odoo sink (docs/sinks-odoo.md): what the daemon's sink wiring needs. */
export { OdooSender, ALREADY_RECORDED, type OdooSenderDeps } from './sender.js';
export { odooDefaults, type OdooSinkOptions, type ResolvedOdooOptions } from './options.js';
export { wallClockToUtc } from '../../punch/wall-clock-utc.js';
