package io.gpux.client;

import io.gpux.proto.v1.Response;

/**
 * A blocking query was answered with a {@link Response} (a refusal such as {@code NOT_AUTHORIZED},
 * {@code BUSY} or {@code RATE_LIMITED}) instead of the answer it asked for.
 */
public final class RequestFailedException extends RuntimeException
{
    private final transient Response response;

    public RequestFailedException(final Response response)
    {
        super(response.getReason() + (response.getMessage().isEmpty() ? "" : ": " + response.getMessage()));
        this.response = response;
    }

    public Response response()
    {
        return response;
    }
}
