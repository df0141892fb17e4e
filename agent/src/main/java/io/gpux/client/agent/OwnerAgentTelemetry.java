package io.gpux.client.agent;

import io.gpux.proto.v1.MachineHeartbeat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * nvidia-smi samples as the telemetry of a {@link MachineHeartbeat}: one {@code GpuTelemetry} per GPU
 * (the latest sample of each), with the memory size and power limit from discovery. Values the tool
 * reported as unavailable are left out (0 on the wire).
 */
final class OwnerAgentTelemetry
{
    private OwnerAgentTelemetry()
    {
    }

    static void addTo(final MachineHeartbeat.Builder heartbeat, final List<GpuTelemetry> samples, final List<GpuInfo> gpus)
    {
        final Map<String, GpuTelemetry> latest = new LinkedHashMap<>();
        for (final GpuTelemetry sample : samples)
        {
            latest.put(sample.uuid(), sample);
        }
        for (final GpuTelemetry s : latest.values())
        {
            final io.gpux.proto.v1.GpuTelemetry.Builder t = io.gpux.proto.v1.GpuTelemetry.newBuilder().setUuid(s.uuid());
            if (s.utilizationGpuPct() >= 0)
            {
                t.setUtilizationPct(s.utilizationGpuPct());
            }
            if (s.utilizationMemoryPct() >= 0)
            {
                t.setMemoryUtilizationPct(s.utilizationMemoryPct());
            }
            if (s.memoryUsedMiB() >= 0)
            {
                t.setMemoryUsedMib(s.memoryUsedMiB());
            }
            if (s.temperatureC() >= 0)
            {
                t.setTemperatureC(s.temperatureC());
            }
            if (s.powerDrawMilliW() >= 0)
            {
                t.setPowerDrawMw(s.powerDrawMilliW());
            }
            final GpuInfo info = find(gpus, s.uuid());
            if (info != null)
            {
                t.setMemoryTotalMib(info.memoryTotalMiB());
                if (info.powerLimitMilliW() >= 0)
                {
                    t.setPowerLimitMw(info.powerLimitMilliW());
                }
            }
            heartbeat.addGpus(t);
        }
    }

    private static GpuInfo find(final List<GpuInfo> gpus, final String uuid)
    {
        for (final GpuInfo gpu : gpus)
        {
            if (gpu.uuid().equals(uuid))
            {
                return gpu;
            }
        }
        return null;
    }
}
