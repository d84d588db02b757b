; Inno Setup script for Parley on Windows: a per-user installer around the PyInstaller onedir bundle.
; UNTESTED (written on Linux; Inno Setup and Windows are not available there). Build on Windows:
;   py -m pip install pyinstaller==6.22.3 pillow      (Pillow turns parley.png into the .exe icon)
;   py packaging\build.py                              (makes dist\parley\ with parley.exe and parley-gui.exe)
;   iscc /DAppVersion=0.1.0 packaging\windows\parley.iss
; Output: dist\parley-<version>-windows-x64-setup.exe. Installs into %LOCALAPPDATA%\Programs\Parley
; without administrator rights; uninstalling removes the program only: models (%LOCALAPPDATA%\parley),
; logs (%LOCALAPPDATA%\Parley\Logs), settings (registry HKCU\Software\Parley) and conversations
; (Documents\Parley) stay.
;
; CUDA variant (UNTESTED as well): PyPI's Windows torch is CPU-only, so take the CUDA wheel from
; PyTorch's index, in a venv of its own, then build the parley-cuda bundle and this script with Variant=cuda:
;   py -m venv build\venv-cuda
;   build\venv-cuda\Scripts\python -m pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cu130
;   build\venv-cuda\Scripts\python -m pip install -e . pyinstaller==6.22.3 pillow
;   build\venv-cuda\Scripts\python packaging\build.py --variant cuda   (makes dist\parley-cuda\)
;   iscc /DAppVersion=0.1.0 /DVariant=cuda packaging\windows\parley.iss
; Output: dist\parley-<version>-windows-x64-cuda-setup.exe, "Parley (CUDA)", installed into
; %LOCALAPPDATA%\Programs\Parley CUDA with its own AppId: it installs beside the CPU variant and
; uninstalls separately; both use the same user data. It needs only the NVIDIA driver.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#ifndef Variant
  #define Variant "cpu"
#endif
#if Variant == "cuda"
  #define AppIdValue "{{6A1F3C52-8E0B-4C77-9D1E-3B5A2C9F7E41}"
  #define AppTitle "Parley (CUDA)"
  #define InstallFolder "Parley CUDA"
  #define BundleFolder "parley-cuda"
  #define OutputSuffix "-cuda"
#else
  #define AppIdValue "{{0000619C-FB99-402B-BB6E-1C7E6F4B43C2}"
  #define AppTitle "Parley"
  #define InstallFolder "Parley"
  #define BundleFolder "parley"
  #define OutputSuffix ""
#endif

[Setup]
AppId={#AppIdValue}
AppName={#AppTitle}
AppVersion={#AppVersion}
AppPublisher=Parley developers
DefaultDirName={localappdata}\Programs\{#InstallFolder}
DefaultGroupName={#AppTitle}
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=parley-{#AppVersion}-windows-x64{#OutputSuffix}-setup
Compression=lzma2
SolidCompression=yes
WizardStyle=modern
UninstallDisplayIcon={app}\parley-gui.exe
UninstallDisplayName={#AppTitle}

[Tasks]
Name: "desktopicon"; Description: "Create a desktop shortcut"; Flags: unchecked

[Files]
Source: "..\..\dist\{#BundleFolder}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppTitle}"; Filename: "{app}\parley-gui.exe"; Comment: "Local real-time voice assistant"
Name: "{autodesktop}\{#AppTitle}"; Filename: "{app}\parley-gui.exe"; Tasks: desktopicon

[Run]
Filename: "{app}\parley-gui.exe"; Description: "Start {#AppTitle}"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; Only the program folder (files Python may have added there); user data lives elsewhere and stays.
Type: filesandordirs; Name: "{app}"
