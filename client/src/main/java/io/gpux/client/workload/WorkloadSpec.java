package io.gpux.client.workload;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What runs on the leased GPUs: a Docker container or a plain process, with its environment and the
 * ports it serves. Immutable; the lists and the map are copies.
 *
 * @param runtime      how the workload is started.
 * @param image        the container image ({@link Runtime#DOCKER}), else null.
 * @param command      {@link Runtime#PROCESS}: the command line, run by {@code /bin/sh -c};
 *                     {@link Runtime#DOCKER}: the program run in the container, or null for the
 *                     image's own command.
 * @param args         {@link Runtime#DOCKER}: the program's arguments; empty for a process.
 * @param env          variables added to the workload's environment, in order.
 * @param ports        TCP ports the workload serves, to be reachable by the renter.
 * @param sshPublicKey an OpenSSH public key line the renter logs in with ({@link Runtime#DOCKER}), or null.
 */
public record WorkloadSpec(
    Runtime runtime,
    String image,
    String command,
    List<String> args,
    Map<String, String> env,
    List<Integer> ports,
    String sshPublicKey)
{
    /** How a workload is started on the owner's machine. */
    public enum Runtime
    {
        /** A process (group) of the agent's machine, as the agent's user or one the owner names. */
        PROCESS,
        /** A Docker container with the leased GPUs passed through. */
        DOCKER;

        /** The name the job file uses: {@code process} or {@code docker}. */
        public String fileName()
        {
            return this == PROCESS ? "process" : "docker";
        }
    }

    /**
     * Checks the combination of fields.
     *
     * @throws NullPointerException     if runtime is null.
     * @throws IllegalArgumentException if a process has no command, an image or args, or a
     *                                  container has no image.
     */
    public WorkloadSpec
    {
        Objects.requireNonNull(runtime, "runtime");
        args = List.copyOf(args == null ? List.of() : args);
        env = env == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(env));
        ports = List.copyOf(ports == null ? List.of() : ports);
        if (runtime == Runtime.PROCESS)
        {
            if (command == null || command.isBlank())
            {
                throw new IllegalArgumentException("a process workload needs a command");
            }
            if (image != null || !args.isEmpty())
            {
                throw new IllegalArgumentException("a process workload has no image and no args");
            }
        }
        else if (image == null || image.isBlank())
        {
            throw new IllegalArgumentException("a docker workload needs an image");
        }
    }

    /** A process workload: {@code /bin/sh -c command} with env added. */
    public static WorkloadSpec process(final String command, final Map<String, String> env)
    {
        return new WorkloadSpec(Runtime.PROCESS, null, command, List.of(), env, List.of(), null);
    }

    /** A container workload; command may be null for the image's own. */
    public static WorkloadSpec docker(
        final String image,
        final String command,
        final List<String> args,
        final Map<String, String> env,
        final List<Integer> ports,
        final String sshPublicKey)
    {
        return new WorkloadSpec(Runtime.DOCKER, image, command, args, env, ports, sshPublicKey);
    }

    /** The same workload serving these ports. */
    public WorkloadSpec withPorts(final List<Integer> newPorts)
    {
        return new WorkloadSpec(runtime, image, command, args, env, newPorts, sshPublicKey);
    }
}
