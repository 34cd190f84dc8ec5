// get_weather: one tool, one named export. tools.json lists it with
// "importPath": "/tools/weather.js" and "entrypoint": "getWeather".
import type { ToolHandler } from "chat-runtime";

export interface WeatherArgs {
  city: string;
}

export interface Weather {
  city: string;
  temperatureC: number;
  conditions: string;
}

// `args` are already checked against the tool's `parameters`; `ctx.signal` fires on Stop and on
// timeout. Return any JSON value (or a string); throw to report a failure to the model.
export const getWeather: ToolHandler<WeatherArgs, Weather> = async ({ city }, ctx) => {
  const response = await fetch(`/api/weather?city=${encodeURIComponent(city)}`, { signal: ctx.signal });
  if (!response.ok) throw new Error(`no weather for ${city}: HTTP ${response.status}`);
  return (await response.json()) as Weather;
};
