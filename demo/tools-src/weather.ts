// get_weather over built-in offline data: the demo never needs the network (or an API key).
import type { ToolHandler } from "chat-runtime";

export interface WeatherArgs {
  city: string;
}

export interface Weather {
  city: string;
  country: string;
  temperatureC: number;
  conditions: string;
  humidityPercent: number;
  windKph: number;
  source: string;
}

type Reading = Omit<Weather, "source">;

const READINGS: Reading[] = [
  { city: "Paris", country: "France", temperatureC: 18, conditions: "partly cloudy", humidityPercent: 62, windKph: 14 },
  { city: "London", country: "United Kingdom", temperatureC: 14, conditions: "light rain", humidityPercent: 81, windKph: 20 },
  { city: "New York", country: "United States", temperatureC: 22, conditions: "sunny", humidityPercent: 48, windKph: 11 },
  { city: "Tokyo", country: "Japan", temperatureC: 25, conditions: "humid and overcast", humidityPercent: 74, windKph: 9 },
  { city: "Berlin", country: "Germany", temperatureC: 16, conditions: "windy", humidityPercent: 58, windKph: 27 },
  { city: "Sydney", country: "Australia", temperatureC: 20, conditions: "clear", humidityPercent: 55, windKph: 17 },
  { city: "Nairobi", country: "Kenya", temperatureC: 24, conditions: "scattered showers", humidityPercent: 66, windKph: 12 },
  { city: "São Paulo", country: "Brazil", temperatureC: 27, conditions: "thunderstorms", humidityPercent: 79, windKph: 8 },
];

/** "  são paulo, Brazil " -> "sao paulo": case, accents, surrounding space and a trailing ", country" don't matter. */
function key(name: string): string {
  return name
    .split(",")[0]!
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .trim()
    .replace(/\s+/g, " ")
    .toLowerCase();
}

const BY_KEY = new Map(READINGS.map((r) => [key(r.city), r]));

export const getWeather: ToolHandler<WeatherArgs, Weather> = ({ city }) => {
  const reading = BY_KEY.get(key(String(city ?? "")));
  if (!reading) {
    const known = READINGS.map((r) => r.city).join(", ");
    throw new Error(`No weather data for "${city}". This demo knows: ${known}.`);
  }
  return { ...reading, source: "offline demo data (not a live forecast)" };
};
