import { errorMessage as baseErrorMessage, DistDebugError } from "@distdebug/schema";

/** Renders any error as the one message a user sees (never a stack trace). */
export function errorMessage(error: unknown): string {
  const message = baseErrorMessage(error);
  if (DistDebugError.isInstance(error) || !(error instanceof Error)) return message;
  const code = (error as NodeJS.ErrnoException).code;
  return code ? `${message} (${code})` : message;
}
