import { describe, expect, it } from 'vitest';
import { credentialPlace } from '../../src/config/sinks.js';

/** A fix names the files of the sink's own kind (a new-user trial saw hrms.tokenFile for an Odoo sink). */
describe('where a sink credential is set', () => {
  it('names the setting of each kind', () => {
    expect(credentialPlace({ name: 'hrms', kind: 'hrms' }, true)).toBe('hrms.tokenFile');
    expect(credentialPlace({ name: 'erp', kind: 'hrms' })).toBe('sinks[erp].tokenFile');
    expect(credentialPlace({ name: 'erp', kind: 'frappe' })).toBe('sinks[erp].apiKeyFile and apiSecretFile');
    expect(credentialPlace({ name: 'odoo', kind: 'odoo' })).toBe('sinks[odoo].apiKeyFile');
  });
});
