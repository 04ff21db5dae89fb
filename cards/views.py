from django.http import HttpResponse


def _todo(request, **kwargs):
    return HttpResponse("todo")


home = game_detail = card_list = card_detail = leader_list = leader_detail = _todo
