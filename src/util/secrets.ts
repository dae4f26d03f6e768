/**
 * The secret values this process knows (HRMS token, terminal comm keys).
 *
 * Every log line and every error shown to a person passes through `scrub`, so a secret
 * that slips into a message by accident is still replaced before it leaves the process.
 * One instance per process, passed through the context (no global).
 */
export class Secrets {
  private readonly values = new Set<string>();

  /** Registers a secret; values shorter than 4 characters are too common to scrub safely. */
  add(value: string | number | undefined | null): void {
    if (value === undefined || value === null) return;
    const s = String(value).trim();
    if (s.length >= 4) this.values.add(s);
  }

  scrub(text: string): string {
    let out = text;
    for (const v of this.values) {
      if (out.includes(v)) out = out.split(v).join('[REDACTED]');
    }
    return out;
  }
}
