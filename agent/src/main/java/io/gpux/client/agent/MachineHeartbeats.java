package io.gpux.client.agent;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The owner agent's heartbeats: one an interval, with the GPUs' telemetry from nvidia-smi, or without
 * it while nvidia-smi fails (the failure reported once, and the recovery). Counts the heartbeats the
 * exchange accepted and the telemetry samples that failed. The agent's thread only, but the counts.
 */
final class MachineHeartbeats
{
    private final GpuxClient client;
    private final OwnerAgentListener listener;
    private final NvidiaSmi nvidiaSmi;
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong telemetryFailures = new AtomicLong();
    private boolean telemetryFailing;

    MachineHeartbeats(final GpuxClient client, final OwnerAgentListener listener, final NvidiaSmi nvidiaSmi)
    {
        this.client = client;
        this.listener = listener;
        this.nvidiaSmi = nvidiaSmi;
    }

    /** Heartbeats the exchange accepted. Any thread. */
    long accepted()
    {
        return accepted.get();
    }

    /** Telemetry samples (and discoveries) that failed. Any thread. */
    long telemetryFailures()
    {
        return telemetryFailures.get();
    }

    /** A discovery failed: counted with the telemetry's failures. */
    void discoveryFailed(final NvidiaSmiException error)
    {
        telemetryFailures.incrementAndGet();
        listener.onTelemetryFailed(error);
    }

    /**
     * Sends the machine's heartbeat.
     *
     * @return false if the exchange does not know the machine as this account's: it must be registered again.
     */
    boolean beat(final long machineId, final List<GpuInfo> gpus, final Duration timeout)
        throws IOException, InterruptedException, TimeoutException
    {
        final MachineHeartbeat.Builder heartbeat = MachineHeartbeat.newBuilder().setMachineId(machineId);
        try
        {
            OwnerAgentTelemetry.addTo(heartbeat, nvidiaSmi.sample(), gpus);
            if (telemetryFailing)
            {
                telemetryFailing = false;
                listener.onTelemetryRecovered();
            }
        }
        catch (final NvidiaSmiException ex)
        {
            telemetryFailures.incrementAndGet();
            if (!telemetryFailing)
            {
                telemetryFailing = true;
                listener.onTelemetryFailed(ex);
            }
        }
        final Response r = client.call(Envelope.newBuilder().setMachineHeartbeat(heartbeat), timeout);
        if (r.getReason() == Reason.REASON_OK)
        {
            accepted.incrementAndGet();
            return true;
        }
        final boolean lost = r.getReason() == Reason.UNKNOWN_MACHINE || r.getReason() == Reason.NOT_OWNER;
        listener.onError("heartbeat", r.getReason() + " " + r.getMessage());
        return !lost;
    }
}
