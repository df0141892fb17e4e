package io.gpux.client.agent.workload;

/**
 * Where a port the workload serves can be reached on the owner's machine.
 *
 * @param workloadPort the port the workload listens on (in the container, for docker).
 * @param hostAddress  the address it is published on, e.g. {@code 0.0.0.0}.
 * @param hostPort     the port on the owner's machine.
 */
public record Endpoint(int workloadPort, String hostAddress, int hostPort)
{
}
