import type { Config } from './config/schema.js';
import type { Clock } from './util/clock.js';
import type { Logger } from './util/logger.js';
import type { Secrets } from './util/secrets.js';

/**
 * What every long-lived part receives instead of reaching for globals:
 * the validated config, a logger, the clock and the secret registry.
 */
export interface AppContext {
  config: Config;
  logger: Logger;
  clock: Clock;
  secrets: Secrets;
}
