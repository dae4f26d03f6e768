/**
 * The address each terminal command was handed to (issue 30): a result settles a command only
 * when it comes from that address, so a device elsewhere using the terminal's serial cannot mark
 * a command "done" (a leaver deleted) that the terminal never carried out. Commands handed out
 * before this column existed have none: their result is taken from the terminal's trusted
 * address, as before.
 */
export const COMMAND_ADDRESS_MIGRATION = `
  ALTER TABLE terminal_commands ADD COLUMN sent_to TEXT;
`;
