#pragma once
// Light, Dark, or the desktop's choice (System) for the whole application. Qt 6.4 has no colour-scheme API:
// System reads the palette the platform gave at start (a dark GTK or KDE theme gives a dark one) and, on
// GNOME, `org.gnome.desktop.interface color-scheme`; Dark is Fusion with a dark palette, Light Fusion with
// its standard one. The choice persists in QSettings ("theme").
#include <QPalette>
#include <QString>

namespace onyx::views {

enum class Theme { System, Light, Dark };

QString themeName(Theme theme);  // "system", "light", "dark" (the QSettings values)
Theme themeFromName(const QString& name);

// Whether the palette's window background is dark.
bool isDark(const QPalette& palette);
// Whether the desktop asks for dark: the platform palette, else GNOME's color-scheme setting.
bool desktopPrefersDark();
QPalette darkPalette();

// Sets the application's style and palette; the first call remembers the platform's own for System.
void applyTheme(Theme theme);
Theme currentTheme();
// The theme saved in QSettings (System when none).
Theme savedTheme();
void saveTheme(Theme theme);

}  // namespace onyx::views
