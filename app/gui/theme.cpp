#include "gui/theme.h"

#include <QApplication>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QStyle>
#include <QStyleFactory>

namespace onyx::views {
namespace {

const char* const kThemeKey = "theme";

struct PlatformLook {
  QPalette palette;
  QString styleName;
};

// What the platform gave before any theme was applied.
const PlatformLook& platformLook() {
  static const PlatformLook look{QApplication::palette(), QApplication::style()->name()};
  return look;
}

Theme& current() {
  static Theme theme = Theme::System;
  return theme;
}

// GNOME 42+: 'prefer-dark' | 'prefer-light' | 'default'. Asked once; gsettings answers in milliseconds.
bool gnomePrefersDark() {
  static const bool dark = [] {
    const QString gsettings = QStandardPaths::findExecutable(QStringLiteral("gsettings"));
    if (gsettings.isEmpty()) return false;
    QProcess process;
    process.start(gsettings, {QStringLiteral("get"), QStringLiteral("org.gnome.desktop.interface"),
                              QStringLiteral("color-scheme")});
    if (!process.waitForFinished(1000)) {
      process.kill();
      process.waitForFinished(100);
      return false;
    }
    return QString::fromUtf8(process.readAllStandardOutput()).contains(QStringLiteral("dark"));
  }();
  return dark;
}

}  // namespace

QString themeName(Theme theme) {
  switch (theme) {
    case Theme::Light: return QStringLiteral("light");
    case Theme::Dark: return QStringLiteral("dark");
    case Theme::System: break;
  }
  return QStringLiteral("system");
}

Theme themeFromName(const QString& name) {
  if (name == QStringLiteral("light")) return Theme::Light;
  if (name == QStringLiteral("dark")) return Theme::Dark;
  return Theme::System;
}

bool isDark(const QPalette& palette) {
  return palette.color(QPalette::Window).lightness() < 128;
}

bool desktopPrefersDark() {
  return isDark(platformLook().palette) || gnomePrefersDark();
}

QPalette darkPalette() {
  QPalette p;
  const QColor window(45, 45, 48), base(30, 30, 32), text(220, 220, 220), disabled(128, 128, 128);
  const QColor highlight(42, 130, 218), link(90, 160, 240);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window);
  p.setColor(QPalette::ToolTipBase, window);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, disabled);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::red);
  p.setColor(QPalette::Light, QColor(70, 70, 74));
  p.setColor(QPalette::Midlight, QColor(60, 60, 64));
  p.setColor(QPalette::Mid, QColor(40, 40, 42));
  p.setColor(QPalette::Dark, QColor(25, 25, 27));
  p.setColor(QPalette::Shadow, Qt::black);
  p.setColor(QPalette::Highlight, highlight);
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, link);
  p.setColor(QPalette::LinkVisited, link.darker(120));
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, disabled);
  p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(80, 80, 80));
  return p;
}

void applyTheme(Theme theme) {
  const PlatformLook& platform = platformLook();
  current() = theme;
  const bool dark = theme == Theme::Dark || (theme == Theme::System && desktopPrefersDark());
  if (theme == Theme::System && !dark) {
    // The desktop's own look, as Onyx started with it.
    if (QApplication::style()->name() != platform.styleName)
      QApplication::setStyle(QStyleFactory::create(platform.styleName));
    QApplication::setPalette(platform.palette);
    return;
  }
  // Fusion draws every control from the palette, so both palettes look whole.
  if (QApplication::style()->name().compare(QStringLiteral("fusion"), Qt::CaseInsensitive) != 0)
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  if (dark && isDark(platform.palette) && theme == Theme::System)
    QApplication::setPalette(platform.palette);
  else
    QApplication::setPalette(dark ? darkPalette() : QApplication::style()->standardPalette());
}

Theme currentTheme() {
  return current();
}

Theme savedTheme() {
  return themeFromName(QSettings().value(kThemeKey).toString());
}

void saveTheme(Theme theme) {
  QSettings().setValue(kThemeKey, themeName(theme));
}

}  // namespace onyx::views
