{ Connect Four random player (the seed's baseline) over TCP, in Free Pascal: drops its
  disc into a random column that has room, from the seed in ARBITER_SEED (the same game
  seed, the same moves). Debug output goes to stderr. }
program random_bot;

{$mode objfpc}{$H+}

uses SysUtils, c4client;

type
  TRandomPlayer = class(TPlayer)
    FHeight: Integer;
    function Name: string; override;
    procedure Wake(Width, Height: Integer; IStart: Boolean); override;
    function Move(const Board: TBoard; LastMove: Integer): Integer; override;
    procedure GameOver(const Result: string); override;
  end;

function TRandomPlayer.Name: string;
begin
  Result := 'random-pascal';
end;

procedure TRandomPlayer.Wake(Width, Height: Integer; IStart: Boolean);
begin
  FHeight := Height;
  if IStart then WriteLn(StdErr, 'new game ', Width, 'x', Height, ', I start')
  else WriteLn(StdErr, 'new game ', Width, 'x', Height, ', they start');
end;

function TRandomPlayer.Move(const Board: TBoard; LastMove: Integer): Integer;
var
  Open: array of Integer;
  X: Integer;
begin
  SetLength(Open, 0);
  for X := 0 to High(Board) do
    if Board[X][FHeight - 1] = C4Empty then
    begin
      SetLength(Open, Length(Open) + 1);
      Open[High(Open)] := X;
    end;
  Result := Open[Random(Length(Open))];
  WriteLn(StdErr, 'they played ', LastMove, ', I play ', Result);
end;

procedure TRandomPlayer.GameOver(const Result: string);
begin
  WriteLn(StdErr, 'game over: ', Result);
end;

var
  Player: TRandomPlayer;
begin
  RandSeed := Cardinal(StrToInt64Def(GetEnvironmentVariable('ARBITER_SEED'), 0));
  Player := TRandomPlayer.Create;
  ExitCode := C4Run(Player);
  Player.Free;
end.
