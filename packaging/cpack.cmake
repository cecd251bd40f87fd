# `cpack -G DEB` in the build folder makes onyx_<version>_<arch>.deb: /usr/bin/onyx, the sample model, the
# .desktop entry, the SVG icon and the shared-mime-info type application/x-onnx (*.onnx), so .onnx files
# open in Onyx. dpkg's triggers of shared-mime-info and desktop-file-utils refresh the MIME and desktop
# databases on install and removal, so the package needs no maintainer scripts.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME onyx)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "Onyx")
set(CPACK_PACKAGE_CONTACT "Onyx developers <onyx@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "See, optimize and profile ONNX models")
set(CPACK_PACKAGE_DESCRIPTION "Onyx shows ONNX graphs with symbolic shapes, applies optimization passes step \
by step with a visual diff, and runs and profiles models on the CPU or through Vulkan compute. Every GUI \
action is also a headless `onyx` subcommand.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)  # RelWithDebInfo's debug info would make the package ten times larger
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends from the libraries the binary links (dpkg-shlibdeps)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "shared-mime-info, desktop-file-utils, mesa-vulkan-drivers")
include(CPack)
