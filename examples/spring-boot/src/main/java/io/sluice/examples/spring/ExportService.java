package io.sluice.examples.spring;

import io.sluice.LimitExceededException;
import io.sluice.spring.LimitKey;
import io.sluice.spring.Limited;
import org.springframework.stereotype.Service;

/**
 * Exports, limited per user by the rule "exports" through {@link Limited}: a rejection is a
 * {@link LimitExceededException}, which Sluice's handler answers as the filter answers (429, headers, problem body).
 */
@Service
public class ExportService {

    /**
     * Exports the user's data, if the rule admits it.
     *
     * @param user who exports: the rule's key
     * @return the export
     * @throws LimitExceededException when the user has exported too often
     */
    @Limited("exports")
    public String export(@LimitKey String user) {
        return "export of " + user;
    }
}
