package io.gpux.gateway.directory;

import io.gpux.proto.v1.GpuTelemetry;

import java.util.List;

/**
 * A machine's latest GPU telemetry, as its owner agent last sent it with a heartbeat.
 *
 * @param receivedMs when the gateway received it (the exchange's clock)
 * @param gpus       one entry per GPU
 */
public record MachineTelemetry(long receivedMs, List<GpuTelemetry> gpus)
{
}
