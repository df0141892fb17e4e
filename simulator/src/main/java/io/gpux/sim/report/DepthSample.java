package io.gpux.sim.report;

/** The top of a market's book at a moment: GPUs on the best 20 levels of each side and the best prices (ticks, 0: none). */
public record DepthSample(long timeMs, String market, long bidGpus, long askGpus, long bestBid, long bestAsk)
{
}
