export { AdmsReceiver, type AdmsReceiverOptions } from './receiver.js';
export { AdmsSource } from './source.js';
export {
  ADMIN_COMMANDS,
  authorizeUserCommand,
  backfillCommand,
  deleteUserCommand,
  isUsersQuery,
  queryUsersCommand,
  updateUserCommand,
  userChangeOf,
  type AdminCommand,
} from './commands.js';
export { parseAttlog, type AttlogRecord, type MalformedLine, type ParsedAttlog } from './attlog.js';
export { activePushNotes, type PushNote } from './notes.js';
