package io.gpux.client.workload;

import io.gpux.proto.v1.EnvVar;
import io.gpux.proto.v1.WorkloadRuntime;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Between the {@link WorkloadSpec} of the Java API and the wire's {@code gpux.v1.WorkloadSpec}. */
public final class WorkloadSpecs
{
    private WorkloadSpecs()
    {
    }

    /**
     * The wire form of a job's workload.
     *
     * @param checkpointName the name the agent keeps the job's checkpoint under (the job's name when
     *                       it has a checkpoint), or null for none.
     * @param attempt        which attempt of the job this is, from 1.
     */
    public static io.gpux.proto.v1.WorkloadSpec toProto(final WorkloadSpec spec, final String checkpointName, final int attempt)
    {
        final io.gpux.proto.v1.WorkloadSpec.Builder b = io.gpux.proto.v1.WorkloadSpec.newBuilder()
            .setRuntime(spec.runtime() == WorkloadSpec.Runtime.PROCESS ? WorkloadRuntime.WORKLOAD_PROCESS :
                WorkloadRuntime.WORKLOAD_DOCKER)
            .addAllArgs(spec.args())
            .setAttempt(attempt);
        if (spec.command() != null)
        {
            b.setCommand(spec.command());
        }
        if (spec.image() != null)
        {
            b.setImage(spec.image());
        }
        spec.env().forEach((name, value) -> b.addEnv(EnvVar.newBuilder().setName(name).setValue(value)));
        spec.ports().forEach(b::addPorts);
        if (spec.sshPublicKey() != null)
        {
            b.setSshPublicKey(spec.sshPublicKey());
        }
        if (checkpointName != null)
        {
            b.setCheckpointDir(checkpointName);
        }
        return b.build();
    }

    /**
     * The Java form of a launched spec.
     *
     * @throws IllegalArgumentException if it is not one the agent can run (an unknown runtime, a
     *                                  process without a command, a container without an image).
     */
    public static WorkloadSpec fromProto(final io.gpux.proto.v1.WorkloadSpec spec)
    {
        final WorkloadSpec.Runtime runtime = switch (spec.getRuntime())
        {
            case WORKLOAD_PROCESS -> WorkloadSpec.Runtime.PROCESS;
            case WORKLOAD_DOCKER -> WorkloadSpec.Runtime.DOCKER;
            default -> throw new IllegalArgumentException("unknown workload runtime " + spec.getRuntimeValue());
        };
        final Map<String, String> env = new LinkedHashMap<>();
        for (final EnvVar v : spec.getEnvList())
        {
            env.put(v.getName(), v.getValue());
        }
        final List<Integer> ports = new ArrayList<>(spec.getPortsList());
        return new WorkloadSpec(runtime, empty(spec.getImage()), empty(spec.getCommand()), spec.getArgsList(), env, ports,
            empty(spec.getSshPublicKey()));
    }

    private static String empty(final String s)
    {
        return s.isEmpty() ? null : s;
    }
}
