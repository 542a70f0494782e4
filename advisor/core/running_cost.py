"""What a token costs to make, from throughput to money (the seeds' chain): energy per token at the
machine's rated power, electricity per million tokens, the same with the hardware paid off over a
stated life at a stated utilization, and the months until the machine has paid for itself against
an API priced per million tokens.

    joules per token      = power (W) ÷ aggregate tok/s
    electricity per 1M    = J/token × 1e6 ÷ 3.6e6 J/kWh × USD/kWh
    tokens a month        = aggregate tok/s × seconds a month × utilization
    with hardware per 1M  = electricity per 1M + price ÷ (tokens a month × months of life ÷ 1e6)
    break-even months     = price ÷ (tokens a month ÷ 1e6 × (API per 1M − electricity per 1M))

The power is the catalog's rated figure (board power for a GPU, the whole machine for a Mac or mini
PC), so the electricity is an upper bound for memory-bound decode, which rarely draws it all.
"""

from __future__ import annotations

from pydantic import Field

from advisor.core.base import Frozen

J_PER_KWH = 3.6e6
S_PER_MONTH = 365.25 * 24 * 3600 / 12
# About the US residential average in 2025 (EIA Electric Power Monthly, table 5.6.A: states from
# about 9 to over 30 cents); a round figure to change for your own tariff.
DEFAULT_ELECTRICITY_USD_PER_KWH = 0.17
DEFAULT_LIFE_YEARS = 3.0
DEFAULT_UTILIZATION = 0.25  # generating a quarter of the time: six hours a day


class CostInputs(Frozen):
    """The prices and use the running cost assumes."""

    electricity_usd_per_kwh: float = Field(DEFAULT_ELECTRICITY_USD_PER_KWH, ge=0, le=100)
    life_years: float = Field(DEFAULT_LIFE_YEARS, gt=0, le=50, description="Years the hardware is paid off over")
    utilization: float = Field(
        DEFAULT_UTILIZATION, gt=0, le=1, description="Share of the time it generates at that throughput"
    )
    api_usd_per_million: float | None = Field(
        None, gt=0, le=100_000, description="An API's price per million output tokens, to break even on"
    )


class RunningCost(Frozen):
    """One machine's cost per token at `tok_s` aggregate throughput. Fields are None when their input
    is missing: no power, no price, or no API price."""

    tok_s: float = Field(gt=0, description="Aggregate tok/s the figures are at")
    joules_per_token: float | None
    usd_per_million_tokens: float | None = Field(description="Electricity alone")
    usd_per_million_tokens_with_hardware: float | None = Field(
        description="Electricity plus the price paid off over the life at the utilization"
    )
    million_tokens_per_month: float
    break_even_months: float | None = Field(
        description="Months of use until the API would have cost the price; None without an API price, or when "
        "electricity alone costs more than the API (it never pays off)"
    )
    pays_off: bool | None = Field(description="False when electricity alone costs more than the API")


def running_cost(
    tok_s: float, power_w: float | None, price_usd: float | None, inputs: CostInputs
) -> RunningCost | None:
    """The chain above for one machine; None when it makes no tokens."""
    if not tok_s or tok_s <= 0:
        return None
    per_month = tok_s * S_PER_MONTH * inputs.utilization / 1e6  # million tokens
    jpt = power_w / tok_s if power_w else None
    energy = jpt * 1e6 / J_PER_KWH * inputs.electricity_usd_per_kwh if jpt is not None else None
    with_hw = None
    if price_usd and energy is not None:
        with_hw = energy + price_usd / (per_month * inputs.life_years * 12)
    months = pays = None
    api = inputs.api_usd_per_million
    if api is not None and energy is not None and price_usd:
        saved = api - energy  # per million tokens made here instead of bought
        pays = saved > 0
        months = price_usd / (per_month * saved) if pays else None
    return RunningCost(
        tok_s=tok_s,
        joules_per_token=jpt,
        usd_per_million_tokens=energy,
        usd_per_million_tokens_with_hardware=with_hw,
        million_tokens_per_month=per_month,
        break_even_months=months,
        pays_off=pays,
    )
