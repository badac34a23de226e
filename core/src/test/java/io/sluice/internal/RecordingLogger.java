package io.sluice.internal;

import java.lang.System.Logger;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link System.Logger} that keeps what it is given, every level enabled. Thread-safe. */
final class RecordingLogger implements Logger {
    record Record(Level level, String message, Throwable thrown) {
    }

    private final List<Record> records = new CopyOnWriteArrayList<>();

    List<Record> records() {
        return List.copyOf(records);
    }

    @Override
    public String getName() {
        return "recording";
    }

    @Override
    public boolean isLoggable(Level level) {
        return true;
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        records.add(new Record(level, msg, thrown));
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        records.add(new Record(level, params == null || params.length == 0 ? format : format + " " + List.of(params), null));
    }
}
