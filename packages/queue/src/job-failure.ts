import { DeltaError, type DeltaErrorCode } from '@delta/errors';
import { UnrecoverableError } from 'bullmq';

// BullMQ keeps of a failed job only its error's message (`failedReason`): a DeltaError's code is written in
// front of it, `CODE: message`, so that whoever reads the queue (`delta batch --wait`) still has it.

/** A failed attempt, retried by BullMQ: a DeltaError whose message starts with its code. */
export function jobFailure(code: DeltaErrorCode, message: string): DeltaError {
  return new DeltaError(`${code}: ${message}`, { code });
}

/** A failure no later attempt can fix: failed at once, its reason starting with its code too. */
export function finalJobFailure(code: DeltaErrorCode, message: string): UnrecoverableError {
  return new UnrecoverableError(`${code}: ${message}`);
}

const CODED_REASON = /^([A-Z][A-Z0-9_]*): /;

/** A failure reason read back from Redis: its code, when it starts with one, and the rest. */
export function codedReason(reason: string): { code?: string; reason: string } {
  const match = CODED_REASON.exec(reason);
  return match ? { code: match[1]!, reason: reason.slice(match[0].length) } : { reason };
}
