package io.gpux.sim.report;

/** One fill as the selling side saw it: time, market, GPUs, price ticks. */
public record TradeRecord(long timeMs, String market, int gpus, long price)
{
}
