package io.gpux.client.e2e;

import io.gpux.client.ClientListener;
import io.gpux.proto.v1.WorkloadState;
import io.gpux.proto.v1.WorkloadStatus;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The workload states a renter is told, in order. */
final class WorkloadStatuses implements ClientListener
{
    private final List<WorkloadStatus> statuses = new CopyOnWriteArrayList<>();

    @Override
    public void onWorkloadStatus(final WorkloadStatus status)
    {
        statuses.add(status);
    }

    /** The first status of the lease in that state, or null. */
    WorkloadStatus state(final long lease, final WorkloadState state)
    {
        return statuses.stream().filter(s -> s.getLeaseId() == lease && s.getState() == state).findFirst().orElse(null);
    }

    /** Where {@link #state} is among all the statuses, -1 if not there. */
    int indexOf(final long lease, final WorkloadState state)
    {
        return statuses.indexOf(state(lease, state));
    }

    @Override
    public String toString()
    {
        return statuses.toString();
    }
}
