// get_browser_time: the browser's local time and time zone (something only the browser knows).
import type { ToolHandler } from "chat-runtime";

export interface BrowserTime {
  /** The local date and time, formatted for the browser's locale, e.g. "Tuesday, 3 June 2025, 14:05:09". */
  localTime: string;
  /** The IANA time zone, e.g. "Europe/Paris". */
  timeZone: string;
  /** The offset from UTC, e.g. "+02:00". */
  utcOffset: string;
  /** The same instant in UTC, ISO 8601. */
  iso: string;
}

function offset(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  const sign = minutes >= 0 ? "+" : "-";
  const abs = Math.abs(minutes);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

export const getBrowserTime: ToolHandler<Record<string, never>, BrowserTime> = () => {
  const now = new Date();
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  const localTime = now.toLocaleString(undefined, {
    weekday: "long",
    year: "numeric",
    month: "long",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
  return { localTime, timeZone, utcOffset: offset(now), iso: now.toISOString() };
};
