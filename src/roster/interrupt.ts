/**
 * A user command stopped by the admin (Ctrl-C, or SIGTERM from systemd or docker) while it
 * writes terminals. The command does not die at once: a ZK terminal is disabled while it is
 * written (it shows "working" and takes no punches) and must be enabled again, so the write in
 * progress ends, the changes after it are not attempted, and the terminals are let go properly.
 */

/** The result of a change not made because the command was stopped. */
export const INTERRUPTED = 'not attempted: the command was interrupted (run it again to finish)';

/** True once the admin asked the command to stop. */
export const isStopped = (stop: AbortSignal | undefined): boolean => stop?.aborted === true;
