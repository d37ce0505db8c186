/** Every value `errorKind` answers: the worker starts each kind × error kind at 0 (worker-metrics.ts). */
export const ERROR_KINDS = ['invalid_payload', 'crm_rejected', 'stalled', 'retries_exhausted'] as const;

/** What `forms_job_failures_total` calls a failure, from the error the handler threw. */
export function errorKind(err: Error): (typeof ERROR_KINDS)[number] {
  if (/^Payload does not match|^Unknown job name/.test(err.message)) return 'invalid_payload';
  if (/ rejected the record: /.test(err.message)) return 'crm_rejected';
  if (/stalled more than/.test(err.message)) return 'stalled';
  return 'retries_exhausted';
}
