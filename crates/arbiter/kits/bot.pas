{ {{NAME}}: a bot for Arbiter over its own protocol (docs/protocols/arbiter.md in
  Arbiter's repository; arbiter-interface: arbiter, which the web arena's upload form
  reads), in Free Pascal. It starts as a random player: it plays a random move of the
  `legal` line. Make it better in ChooseMove.

  The referee writes one line at a time on stdin; the bot answers on stdout, one line,
  flushed. Debug output goes to stderr (it is kept in the game record, per move). }
program Bot;

{$mode objfpc}{$H+}

uses SysUtils;

var
  Line, Command, Rest, Chosen: string;
  Legal: array of string;
  Space: Integer;

{ The game's seed for this side (the `seed` line; ARBITER_SEED before it): the same
  `--seed` gives the same games, move for move. }
procedure SeedFrom(const Text: string);
begin
  RandSeed := Cardinal(StrToInt64Def(Trim(Text), 0));
end;

{ The words of a line, split at single spaces. }
procedure SplitWords(const Text: string);
var
  From, I: Integer;
begin
  SetLength(Legal, 0);
  From := 1;
  for I := 1 to Length(Text) + 1 do
    if (I > Length(Text)) or (Text[I] = ' ') then
    begin
      SetLength(Legal, Length(Legal) + 1);
      Legal[High(Legal)] := Copy(Text, From, I - From);
      From := I + 1;
    end;
end;

{ The move to play. Legal lists every legal move in the game's notation; it is empty in
  a game whose moves cannot be listed (Legions), where '' is a turn without orders. }
function ChooseMove: string;
begin
  if Length(Legal) = 0 then
    Result := ''
  else
    Result := Legal[Random(Length(Legal))];
end;

begin
  SeedFrom(GetEnvironmentVariable('ARBITER_SEED'));
  SetLength(Legal, 0);
  while not EOF(Input) do
  begin
    ReadLn(Line);
    if (Length(Line) > 0) and (Line[Length(Line)] = #13) then
      SetLength(Line, Length(Line) - 1);
    Space := Pos(' ', Line);
    if Space = 0 then
    begin
      Command := Line;
      Rest := '';
    end
    else
    begin
      Command := Copy(Line, 1, Space - 1);
      Rest := Copy(Line, Space + 1, Length(Line));
    end;
    if Command = 'arbiter' then
    begin
      Write('name {{NAME}}'#10'ready'#10);
      Flush(Output);
    end
    else if Command = 'seed' then
      SeedFrom(Rest)
    else if Command = 'position' then
      SetLength(Legal, 0)
    else if Command = 'legal' then
      SplitWords(Rest)
    else if Command = 'go' then
    begin
      Chosen := ChooseMove;
      WriteLn(StdErr, 'playing ''', Chosen, '''');
      Flush(StdErr);
      Write('move ', Chosen, #10);
      Flush(Output);
    end
    else if Command = 'quit' then
      Break;
    { Other lines (game, side, start, opponent, time, result) are not needed here. }
  end;
end.
