package io.gpux.client;

import io.gpux.proto.v1.SessionErrorCode;
import java.io.IOException;

/** The gateway ended the session with a SessionError (for example it refused the Login). */
public final class GpuxSessionException extends IOException
{
    private final SessionErrorCode code;

    public GpuxSessionException(final SessionErrorCode code, final String message)
    {
        super(code + (message == null || message.isEmpty() ? "" : ": " + message));
        this.code = code;
    }

    public SessionErrorCode code()
    {
        return code;
    }
}
