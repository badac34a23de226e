package io.sluice.cdi;

/** Optional APIs (servlet) are used only when the application's class loader has them. */
final class Classes {
    private Classes() {
    }

    static boolean present(String name) {
        try {
            Class.forName(name, false, Classes.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
