package io.msgscope.coordinator.scenario;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.Locale;

/**
 * Runs each test under a German default locale (decimal comma, '.' as the grouping separator) and
 * restores the previous one: machine-readable output must not change with the locale (STYLE.md).
 */
final class GermanLocale implements BeforeEachCallback, AfterEachCallback {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(GermanLocale.class);

    @Override
    public void beforeEach(ExtensionContext context) {
        context.getStore(NS).put("saved", Locale.getDefault());
        Locale.setDefault(Locale.GERMANY);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Locale.setDefault(context.getStore(NS).get("saved", Locale.class));
    }
}
