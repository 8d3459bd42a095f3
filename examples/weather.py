"""Weather: tools that return structured data (the Ballerina MCP "basic service").

Each tool is a plain typed function. The input schema comes from its parameters,
and the returned record becomes the result's ``structuredContent``, described by an
``outputSchema`` generated from the record type. A JSON copy goes in a text block for
clients that only read text. A tool that raises returns an ``isError`` result that the
model can read.

There is no network access. The weather is made up, but it is the same for the same
city every time: it is derived from a hash of the city's name.

Run it:

    python examples/weather.py
    mcp-core call "python examples/weather.py" getCurrentWeather --arg city=Colombo
    mcp-core list "python examples/weather.py"
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Final

import msgspec

from mcp_core import Server
from transports import run_stdio

CONDITIONS: Final = ("sunny", "partly cloudy", "cloudy", "light rain", "heavy rain", "windy")

COUNTRIES: Final = {
    "colombo": "Sri Lanka",
    "london": "United Kingdom",
    "new york": "United States",
    "paris": "France",
    "tokyo": "Japan",
}
"""Countries of a few well-known cities, for when the caller does not say."""


class Weather(msgspec.Struct, kw_only=True, rename="camel"):
    """The current weather in a city."""

    city: str
    country: str | None
    temperature: Annotated[float, msgspec.Meta(description="Degrees Celsius.")]
    condition: str
    humidity: Annotated[int, msgspec.Meta(description="Relative humidity, in percent.")]
    wind_speed: Annotated[float, msgspec.Meta(description="Kilometres per hour.")]


class DayForecast(msgspec.Struct, kw_only=True, rename="camel"):
    """The expected weather on one day."""

    day: Annotated[int, msgspec.Meta(description="1 is tomorrow.")]
    low: Annotated[float, msgspec.Meta(description="Degrees Celsius.")]
    high: Annotated[float, msgspec.Meta(description="Degrees Celsius.")]
    condition: str


server = Server("weather", "1.0.0", instructions="Current weather and forecasts by city name.")


def _digest(*parts: str) -> bytes:
    text = "/".join(part.strip().lower() for part in parts)
    return hashlib.sha256(text.encode()).digest()


def _check(city: str) -> str:
    if not city.strip():
        raise ValueError("city must not be empty")
    return city.strip()


@server.tool(name="getCurrentWeather")
def current_weather(city: str, country: str | None = None) -> Weather:
    """Get the current weather in a city.

    Args:
        city: The city's name, for example "Colombo".
        country: Its country, when the name alone is ambiguous.
    """
    city = _check(city)
    b = _digest(city)
    return Weather(
        city=city,
        country=country or COUNTRIES.get(city.lower()),
        temperature=round(-10 + b[0] / 255 * 45, 1),
        condition=CONDITIONS[b[1] % len(CONDITIONS)],
        humidity=20 + b[2] % 76,
        wind_speed=round(b[3] / 255 * 40, 1),
    )


@server.tool(name="getWeatherForecast")
def forecast(city: str, days: Annotated[int, msgspec.Meta(ge=1, le=7)] = 3) -> list[DayForecast]:
    """Get the forecast for the coming days.

    Args:
        city: The city's name.
        days: How many days ahead, from 1 to 7.
    """
    city = _check(city)
    days_ahead = []
    for day in range(1, days + 1):
        b = _digest(city, str(day))
        low = round(-10 + b[0] / 255 * 30, 1)
        days_ahead.append(
            DayForecast(
                day=day,
                low=low,
                high=round(low + 2 + b[1] / 255 * 12, 1),
                condition=CONDITIONS[b[2] % len(CONDITIONS)],
            )
        )
    return days_ahead


if __name__ == "__main__":
    run_stdio(server)
