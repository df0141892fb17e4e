package io.gpux.gateway.workload;

import io.gpux.proto.v1.EnvVar;
import io.gpux.proto.v1.WorkloadRuntime;
import io.gpux.proto.v1.WorkloadSpec;

import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;

/** The exchange's checks of a launched {@link WorkloadSpec}: the shape the agent can run, nothing about the machine. */
final class SpecCheck
{
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
    private static final Pattern CHECKPOINT = Pattern.compile("[A-Za-z0-9._-]{0,128}");
    /** An absolute path of printable characters, no {@code .} or {@code ..} segment, no empty segment. */
    private static final Pattern CHECKPOINT_PATH = Pattern.compile("(/(?!\\.\\.?(/|$))[\\x21-\\x7e&&[^/]]{1,255}){1,64}");

    private SpecCheck()
    {
    }

    /** @return what is wrong with the spec, in one line, or null when it can be launched. */
    static String problem(final WorkloadSpec spec)
    {
        final boolean process = spec.getRuntime() == WorkloadRuntime.WORKLOAD_PROCESS;
        if (!process && spec.getRuntime() != WorkloadRuntime.WORKLOAD_DOCKER)
        {
            return "spec.runtime must be WORKLOAD_PROCESS or WORKLOAD_DOCKER";
        }
        if (process)
        {
            if (spec.getCommand().isBlank())
            {
                return "a process workload needs a command";
            }
            if (!spec.getImage().isEmpty() || spec.getArgsCount() > 0 || !spec.getSshPublicKey().isEmpty())
            {
                return "a process workload has no image, args or ssh_public_key";
            }
        }
        else if (spec.getImage().isBlank())
        {
            return "a docker workload needs an image";
        }
        final Set<String> names = new HashSet<>();
        for (final EnvVar v : spec.getEnvList())
        {
            final String name = v.getName();
            if (!ENV_NAME.matcher(name).matches())
            {
                return "env name '" + name + "' is not 1 to 128 of A-Z a-z 0-9 _ (not starting with a digit)";
            }
            if (name.startsWith("GPUX_") || name.equals("CUDA_VISIBLE_DEVICES") || name.equals("NVIDIA_VISIBLE_DEVICES"))
            {
                return "env " + name + " is the agent's to set";
            }
            if (!names.add(name))
            {
                return "env " + name + " is given twice";
            }
        }
        final Set<Integer> ports = new HashSet<>();
        for (final int port : spec.getPortsList())
        {
            if (port < 1 || port > 65535)
            {
                return "port " + Integer.toUnsignedString(port) + " is not 1 to 65535";
            }
            if (!ports.add(port))
            {
                return "port " + port + " is given twice";
            }
        }
        final String checkpoint = spec.getCheckpointDir();
        if (checkpoint.startsWith("/"))
        {
            if (checkpoint.length() > 1024 || !CHECKPOINT_PATH.matcher(checkpoint).matches())
            {
                return "checkpoint_dir path must be absolute, up to 1024 printable characters without spaces, "
                    + "with no empty, . or .. part";
            }
        }
        else if (!CHECKPOINT.matcher(checkpoint).matches() || checkpoint.equals(".") || checkpoint.equals(".."))
        {
            return "checkpoint_dir must be a name of up to 128 of A-Z a-z 0-9 . _ - or an absolute path";
        }
        return null;
    }
}
