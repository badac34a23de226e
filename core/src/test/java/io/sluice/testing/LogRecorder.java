package io.sluice.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What Sluice logs (through {@code System.Logger}, which reaches java.util.logging in tests), recorded from a
 * logger and its children until {@link #close()}. Holds its logger strongly: java.util.logging keeps loggers
 * weakly, and would drop the handler with one that nothing else holds.
 */
public final class LogRecorder extends Handler implements AutoCloseable {
    private final Logger logger;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    private LogRecorder(Logger logger) {
        this.logger = logger;
        logger.addHandler(this);
    }

    /** Records everything logged to {@code loggerName} and the loggers below it. */
    public static LogRecorder on(String loggerName) {
        return new LogRecorder(Logger.getLogger(loggerName));
    }

    public List<LogRecord> records() {
        return List.copyOf(records);
    }

    /** The messages (as written, parameters not filled in) logged at {@code level}, in order. */
    public List<String> messages(Level level) {
        return records.stream().filter(r -> r.getLevel() == level).map(LogRecord::getMessage).toList();
    }

    @Override
    public void publish(LogRecord record) {
        records.add(record);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
