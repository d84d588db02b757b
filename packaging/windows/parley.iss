; Inno Setup script for Parley on Windows: a per-user installer around the PyInstaller onedir bundle.
; UNTESTED (written on Linux; Inno Setup and Windows are not available there). Build on Windows:
;   py -m pip install pyinstaller==6.22.3 pillow      (Pillow turns parley.png into the .exe icon)
;   py packaging\build.py                              (makes dist\parley\ with parley.exe and parley-gui.exe)
;   iscc /DAppVersion=0.1.0 packaging\windows\parley.iss
; Output: dist\parley-<version>-windows-x64-setup.exe. Installs into %LOCALAPPDATA%\Programs\Parley
; without administrator rights; uninstalling removes the program only: models (%LOCALAPPDATA%\parley),
; logs (%LOCALAPPDATA%\Parley\Logs), settings (registry HKCU\Software\Parley) and conversations
; (Documents\Parley) stay.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif

[Setup]
AppId={{0000619C-FB99-402B-BB6E-1C7E6F4B43C2}
AppName=Parley
AppVersion={#AppVersion}
AppPublisher=Parley developers
DefaultDirName={localappdata}\Programs\Parley
DefaultGroupName=Parley
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=parley-{#AppVersion}-windows-x64-setup
Compression=lzma2
SolidCompression=yes
WizardStyle=modern
UninstallDisplayIcon={app}\parley-gui.exe
UninstallDisplayName=Parley

[Tasks]
Name: "desktopicon"; Description: "Create a desktop shortcut"; Flags: unchecked

[Files]
Source: "..\..\dist\parley\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\Parley"; Filename: "{app}\parley-gui.exe"; Comment: "Local real-time voice assistant"
Name: "{autodesktop}\Parley"; Filename: "{app}\parley-gui.exe"; Tasks: desktopicon

[Run]
Filename: "{app}\parley-gui.exe"; Description: "Start Parley"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; Only the program folder (files Python may have added there); user data lives elsewhere and stays.
Type: filesandordirs; Name: "{app}"
