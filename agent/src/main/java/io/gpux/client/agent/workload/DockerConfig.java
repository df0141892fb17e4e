package io.gpux.client.agent.workload;

import java.util.List;
import java.util.Objects;

/**
 * What the owner allows and gives the {@code docker} runtime.
 *
 * @param docker        the docker executable, e.g. {@code docker} (found on the PATH).
 * @param machine       this agent's machine name, put on every container as the label
 *                      {@code gpux.agent}, so a restarted agent finds its containers.
 * @param allowedImages the images workloads may use: an exact reference
 *                      ({@code nvcr.io/nvidia/pytorch:24.05-py3}) or a prefix ending in {@code *}
 *                      ({@code nvcr.io/nvidia/*}); an empty list allows none.
 * @param memory        the memory limit ({@code --memory}, e.g. {@code 64g}), or null for none.
 * @param cpus          the CPU limit ({@code --cpus}, e.g. {@code 16}), or null for none.
 * @param pidsLimit     the process limit ({@code --pids-limit}), or 0 for none.
 */
public record DockerConfig(
    String docker, String machine, List<String> allowedImages, String memory, String cpus, int pidsLimit)
{
    /** Checks the executable and machine are given; copies the list. */
    public DockerConfig
    {
        Objects.requireNonNull(docker, "docker");
        Objects.requireNonNull(machine, "machine");
        allowedImages = List.copyOf(allowedImages);
    }

    /** Whether the allow-list admits this image. */
    public boolean allows(final String image)
    {
        for (final String allowed : allowedImages)
        {
            if (allowed.endsWith("*") ? image.startsWith(allowed.substring(0, allowed.length() - 1)) : image.equals(allowed))
            {
                return true;
            }
        }
        return false;
    }
}
