/**
 * Text a TASKS file, a model or a tool chose (task ids are checked; metadata values, model names, reasons,
 * answers and tool output are not) with its control characters shown, never obeyed: an escape sequence must
 * not recolour, clear or retitle the terminal, nor write its clipboard. Lines and tabs stay.
 */
export function visibleControls(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
