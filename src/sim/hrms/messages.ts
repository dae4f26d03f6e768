/**
 * Every text the simulator answers with, in one place so that tests, docs/simulators.md and
 * integrators' duplicate/auth patterns can rely on them.
 */
export const MSG = {
  badToken: 'Bearer token is not correct',
  invalidPath:
    'Input parameters are not valid. Please provide a valid group, plugin name and API function. Contact support if the problem persists.',
  punchesNotArray: 'punches_data must be a JSON array',
  added: 'Attendance added successfully',
  duplicate: 'Attendance already exists for this biometric code and time',
  codeRequired: 'biometriccode is required',
  codeNotString: 'biometriccode must be a string',
  logDateRequired: 'logDate is required',
  notObject: 'Invalid punch: each element of punches_data must be an object',
  invalidLogDate: (v: unknown) => `Invalid logDate: ${typeof v === 'string' ? v : JSON.stringify(v)}`,
  unknownCode: (code: string) => `Unknown biometric code ${code}`,
  disabled: (code: string) => `Employee ${code} is disabled: punch refused`,
  unavailable: 'Service temporarily unavailable',
  tooMany: (n: number) => `Too many requests: at most ${n} per second`,
  batchTooLarge: (n: number, max: number) => `Batch too large: ${n} punches, at most ${max} per request`,
  poisoned: (code: string) => `Batch refused: biometric code ${code} cannot be processed`,
  bodyTooLarge: 'Request body too large',
  methodNotAllowed: (m: string) => `Method ${m} not allowed`,
  validation: (problems: string[]) => `Validation failed: ${problems.join('; ')}`,
  typeMismatch: (field: string, type: string) => `${field}: data type must match ${type}`,
  notMapped: (field: string) => `field ${field} is not mapped`,
  notFound: (id: string) => `Employee not found: ${id}`,
  created: 'Employee created',
  updated: 'Employee updated',
  disabledEmployee: 'Employee disabled',
} as const;

export const NON_JSON_PAGE =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n' +
  '<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
