package io.sluice.rule;

/** Whether a rule rejects ({@link #ENFORCE}) or only decides and reports ({@link #DRY_RUN}). */
public enum Mode {
    ENFORCE, DRY_RUN
}
